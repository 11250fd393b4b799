// A client-go v0.24.17 dynamic informer (k8s.io/client-go/dynamic/dynamicinformer) on a custom
// resource, driven by test/client-go-dynamic-informer.test.ts against this server or the reference.
// It creates a CRD with the dynamic client, waits until it is Established and served, starts a
// filtered dynamic informer on the kind in one namespace (resync every second), and prints one
// JSON line per step on stdout:
//
//	"synced"  the informer synced (empty namespace);
//	"events"  its handler events for: create g1, create g2, update g1, delete g2 (in order);
//	"relist"  while its watch delivers nothing, g3 is created and g1 deleted; the watch is then
//	          closed and the next watch refused, so the reflector lists again: the handler must see
//	          g3 added and g1 deleted, and the store hold exactly g3; "lists" counts list calls;
//	"resync"  periodic resync delivers updates whose old and new objects are the same version.
//
// Events: "ADD name", "UPDATE name n=<spec.n>", "DELETE name" (+ " (tombstone)" for a deletion a
// relist discovered); a resync (same resourceVersion) is counted apart. Errors: {"error": ...}.
//
//	dynamic-informer <kubeconfig> <namespace> <group>
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

func emit(step string, v map[string]interface{}) {
	v["step"] = step
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func fail(step string, err error) {
	emit(step, map[string]interface{}{"error": err.Error()})
	os.Exit(1)
}

// Switches of the watch the informer's reflector uses.
var (
	paused    atomic.Bool // drop every event (the informer misses them)
	failWatch atomic.Bool // refuse the next watch call (the reflector then relists)
	lists     atomic.Int32
	current   struct {
		sync.Mutex
		w *pausable
	}
)

// pausable forwards a watch's events unless paused; Stop of the informer or close() ends it.
type pausable struct {
	inner watch.Interface
	out   chan watch.Event
	done  chan struct{}
	once  sync.Once
}

func newPausable(inner watch.Interface) *pausable {
	p := &pausable{inner: inner, out: make(chan watch.Event), done: make(chan struct{})}
	go func() {
		defer close(p.out)
		for {
			select {
			case <-p.done:
				return
			case ev, ok := <-inner.ResultChan():
				if !ok {
					return
				}
				if paused.Load() {
					continue
				}
				select {
				case p.out <- ev:
				case <-p.done:
					return
				}
			}
		}
	}()
	return p
}

func (p *pausable) Stop() {
	p.once.Do(func() { close(p.done); p.inner.Stop() })
}
func (p *pausable) ResultChan() <-chan watch.Event { return p.out }

type nsClient struct{ dynamic.ResourceInterface }

func (c nsClient) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	lists.Add(1)
	return c.ResourceInterface.List(ctx, opts)
}

func (c nsClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if failWatch.Swap(false) {
		return nil, errors.New("watch refused by the test")
	}
	w, err := c.ResourceInterface.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	p := newPausable(w)
	current.Lock()
	current.w = p
	current.Unlock()
	return p, nil
}

type resClient struct {
	dynamic.NamespaceableResourceInterface
}

func (c resClient) Namespace(ns string) dynamic.ResourceInterface {
	return nsClient{c.NamespaceableResourceInterface.Namespace(ns)}
}

type client struct{ dynamic.Interface }

func (c client) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return resClient{c.Interface.Resource(gvr)}
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: dynamic-informer <kubeconfig> <namespace> <group>")
		os.Exit(2)
	}
	kubeconfig, ns, group := os.Args[1], os.Args[2], os.Args[3]
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fail("config", err)
	}
	dyn := dynamic.NewForConfigOrDie(cfg)
	ctx := context.Background()

	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	crd := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]interface{}{"name": "gadgets." + group},
		"spec": map[string]interface{}{
			"group": group,
			"scope": "Namespaced",
			"names": map[string]interface{}{"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
			"versions": []interface{}{map[string]interface{}{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]interface{}{"openAPIV3Schema": map[string]interface{}{
					"type": "object",
					"properties": map[string]interface{}{"spec": map[string]interface{}{
						"type": "object", "properties": map[string]interface{}{"n": map[string]interface{}{"type": "integer"}},
					}},
				}},
			}},
		},
	}}
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		fail("crd", err)
	}
	defer crds.Delete(ctx, "gadgets."+group, metav1.DeleteOptions{})
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}
	gadgets := dyn.Resource(gvr).Namespace(ns)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := gadgets.List(ctx, metav1.ListOptions{}); err == nil {
			break
		} else if time.Now().After(deadline) {
			fail("crd", fmt.Errorf("not served after 30s: %v", err))
		}
		time.Sleep(100 * time.Millisecond)
	}

	var mu sync.Mutex
	events := []string{}
	resyncs := 0
	record := func(e string) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	n := func(o interface{}) interface{} {
		v, _, _ := unstructured.NestedFieldNoCopy(o.(*unstructured.Unstructured).Object, "spec", "n")
		return v
	}
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client{dyn}, time.Second, ns, nil)
	informer := factory.ForResource(gvr).Informer()
	informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(o interface{}) { record("ADD " + o.(*unstructured.Unstructured).GetName()) },
		UpdateFunc: func(old, cur interface{}) {
			o, c := old.(*unstructured.Unstructured), cur.(*unstructured.Unstructured)
			if o.GetResourceVersion() == c.GetResourceVersion() {
				mu.Lock()
				resyncs++
				mu.Unlock()
				return
			}
			record(fmt.Sprintf("UPDATE %s n=%v", c.GetName(), n(c)))
		},
		DeleteFunc: func(o interface{}) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				record("DELETE " + t.Obj.(*unstructured.Unstructured).GetName() + " (tombstone)")
				return
			}
			record("DELETE " + o.(*unstructured.Unstructured).GetName())
		},
	})
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	if !cache.WaitForCacheSync(stop, informer.HasSynced) {
		fail("synced", errors.New("cache did not sync"))
	}
	emit("synced", map[string]interface{}{"lists": lists.Load()})

	taken := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := events
		events = []string{}
		return out
	}
	waitFor := func(step string, count int) []string {
		end := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			got := len(events)
			mu.Unlock()
			if got >= count {
				time.Sleep(300 * time.Millisecond) // nothing more should come
				return taken()
			}
			if time.Now().After(end) {
				fail(step, fmt.Errorf("timed out with events %v", taken()))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	obj := func(name string, v int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": group + "/v1", "kind": "Gadget",
			"metadata": map[string]interface{}{"name": name}, "spec": map[string]interface{}{"n": v},
		}}
	}

	// 1. Adds, an update, a delete: seen in order.
	for _, name := range []string{"g1", "g2"} {
		if _, err := gadgets.Create(ctx, obj(name, 1), metav1.CreateOptions{}); err != nil {
			fail("events", err)
		}
	}
	g1, err := gadgets.Get(ctx, "g1", metav1.GetOptions{})
	if err != nil {
		fail("events", err)
	}
	unstructured.SetNestedField(g1.Object, int64(2), "spec", "n")
	if _, err := gadgets.Update(ctx, g1, metav1.UpdateOptions{}); err != nil {
		fail("events", err)
	}
	if err := gadgets.Delete(ctx, "g2", metav1.DeleteOptions{}); err != nil {
		fail("events", err)
	}
	emit("events", map[string]interface{}{"events": waitFor("events", 4)})

	// 2. Changes the watch misses; then the watch ends and the reflector relists.
	paused.Store(true)
	if _, err := gadgets.Create(ctx, obj("g3", 3), metav1.CreateOptions{}); err != nil {
		fail("relist", err)
	}
	if err := gadgets.Delete(ctx, "g1", metav1.DeleteOptions{}); err != nil {
		fail("relist", err)
	}
	time.Sleep(500 * time.Millisecond)
	missed := taken()
	before := lists.Load()
	failWatch.Store(true)
	paused.Store(false)
	current.Lock()
	current.w.Stop()
	current.Unlock()
	got := waitFor("relist", 2)
	names := []string{}
	for _, o := range informer.GetStore().List() {
		names = append(names, o.(*unstructured.Unstructured).GetName())
	}
	sort.Strings(names)
	emit("relist", map[string]interface{}{"missed": missed, "events": got, "names": names, "relisted": lists.Load() > before})

	// 3. Resync: the handler's period is one second.
	mu.Lock()
	resyncs = 0
	mu.Unlock()
	time.Sleep(2500 * time.Millisecond)
	mu.Lock()
	count := resyncs
	mu.Unlock()
	emit("resync", map[string]interface{}{"resyncs": count, "events": taken()})
}
