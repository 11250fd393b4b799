// A client-go v0.24.17 program driven by test/client-go-informer.test.ts: a shared informer
// (Protobuf, bookmarks on) that must survive a server restart with its version compacted (410 →
// relist), a raw watch that receives BOOKMARK events, the dynamic client, and discovery. It prints
// one JSON line per step on stdout and waits for "go" lines on stdin where the test acts between
// steps (restart the server, write while it is away).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
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

// requestLog counts the requests client-go makes, by kind.
type requestLog struct {
	lists, watches int64
	bookmarkParam  int64
	rt             http.RoundTripper
}

func (l *requestLog) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/configmaps") {
		q := r.URL.Query()
		if q.Get("watch") == "true" {
			atomic.AddInt64(&l.watches, 1)
			if q.Get("allowWatchBookmarks") == "true" {
				atomic.AddInt64(&l.bookmarkParam, 1)
			}
		} else {
			atomic.AddInt64(&l.lists, 1)
		}
	}
	return l.rt.RoundTrip(r)
}

func names(store cache.Store) []string {
	out := []string{}
	for _, o := range store.List() {
		out = append(out, o.(*corev1.ConfigMap).Name)
	}
	sort.Strings(out)
	return out
}

func waitFor(what string, d time.Duration, f func() bool) {
	deadline := time.Now().Add(d)
	for !f() {
		if time.Now().After(deadline) {
			fail(what, fmt.Errorf("timed out after %s", d))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func main() {
	kubeconfig, ns := os.Args[1], os.Args[2]
	stdin := bufio.NewScanner(os.Stdin)
	next := func() { stdin.Scan() }

	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fail("config", err)
	}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	log := &requestLog{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { log.rt = rt; return log }
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()

	// 1. Shared informer: initial list, then live events.
	// Only this suite's objects (the namespace also holds what controllers create, e.g. kube-root-ca.crt).
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "suite=informer" }))
	inf := factory.Core().V1().ConfigMaps().Informer()
	var mu sync.Mutex
	events := []string{}
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o interface{}) { mu.Lock(); events = append(events, "ADD "+o.(*corev1.ConfigMap).Name); mu.Unlock() },
		UpdateFunc: func(_, o interface{}) { mu.Lock(); events = append(events, "UPDATE "+o.(*corev1.ConfigMap).Name); mu.Unlock() },
		DeleteFunc: func(o interface{}) {
			name := ""
			if cm, ok := o.(*corev1.ConfigMap); ok {
				name = cm.Name
			} else if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
				name = d.Key
			}
			mu.Lock()
			events = append(events, "DELETE "+name)
			mu.Unlock()
		},
	})
	stop := make(chan struct{})
	factory.Start(stop)
	if !cache.WaitForCacheSync(stop, inf.HasSynced) {
		fail("sync", fmt.Errorf("cache did not sync"))
	}
	cms := cs.CoreV1().ConfigMaps(ns)
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "live-1", Labels: map[string]string{"suite": "informer"}}, Data: map[string]string{"a": "1"}}, metav1.CreateOptions{}); err != nil {
		fail("create", err)
	}
	waitFor("informer sees live-1", 20*time.Second, func() bool { _, ok, _ := inf.GetStore().GetByKey(ns + "/live-1"); return ok })
	emit("synced", map[string]interface{}{"names": names(inf.GetStore()), "lists": atomic.LoadInt64(&log.lists), "watches": atomic.LoadInt64(&log.watches), "bookmarkParam": atomic.LoadInt64(&log.bookmarkParam)})

	// 2. The test restarts the server, writes while the informer is away, and lets the version it
	//    held be compacted; the reflector's watch gets 410 Gone and it relists.
	next()
	waitFor("informer converges after the 410", 60*time.Second, func() bool {
		n := names(inf.GetStore())
		return len(n) == 3 && n[0] == "away-1" && n[1] == "away-2" && n[2] == "live-1"
	})
	mu.Lock()
	evs := append([]string{}, events...)
	mu.Unlock()
	emit("relisted", map[string]interface{}{"names": names(inf.GetStore()), "lists": atomic.LoadInt64(&log.lists), "events": evs})
	close(stop)

	// 3. A raw watch with bookmarks: BOOKMARK events carry only a resourceVersion.
	w, err := cms.Watch(ctx, metav1.ListOptions{LabelSelector: "suite=informer", AllowWatchBookmarks: true, TimeoutSeconds: int64Ptr(4)})
	if err != nil {
		fail("watch", err)
	}
	bookmarks, added := 0, 0
	lastRV := ""
	for ev := range w.ResultChan() {
		switch ev.Type {
		case watch.Bookmark:
			bookmarks++
			lastRV = ev.Object.(*corev1.ConfigMap).ResourceVersion
		case watch.Added:
			added++
		}
	}
	emit("bookmarks", map[string]interface{}{"bookmarks": bookmarks, "added": added, "lastRV": lastRV})

	// 4. The dynamic client (JSON, unstructured).
	dyn := dynamic.NewForConfigOrDie(rest.CopyConfig(cfg))
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	u := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]interface{}{"name": "dyn-1"}, "data": map[string]interface{}{"k": "v"}}}
	created, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		fail("dynamic", err)
	}
	list, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		fail("dynamic", err)
	}
	if err := dyn.Resource(gvr).Namespace(ns).Delete(ctx, "dyn-1", metav1.DeleteOptions{}); err != nil {
		fail("dynamic", err)
	}
	_, getErr := dyn.Resource(gvr).Namespace(ns).Get(ctx, "dyn-1", metav1.GetOptions{})
	emit("dynamic", map[string]interface{}{"uid": string(created.GetUID()) != "", "listed": len(list.Items), "getAfterDelete": fmt.Sprint(getErr)})

	// 5. Discovery.
	groups, resources, err := cs.Discovery().ServerGroupsAndResources()
	if err != nil {
		fail("discovery", err)
	}
	gvs := []string{}
	for _, g := range groups {
		for _, v := range g.Versions {
			gvs = append(gvs, v.GroupVersion)
		}
	}
	cmVerbs := []string{}
	for _, rl := range resources {
		if rl.GroupVersion != "v1" {
			continue
		}
		for _, r := range rl.APIResources {
			if r.Name == "configmaps" {
				cmVerbs = r.Verbs
			}
		}
	}
	preferred, err := cs.Discovery().ServerPreferredResources()
	if err != nil {
		fail("discovery", err)
	}
	emit("discovery", map[string]interface{}{"groupVersions": gvs, "configmapVerbs": cmVerbs, "preferredLists": len(preferred)})
}

func int64Ptr(v int64) *int64 { return &v }
