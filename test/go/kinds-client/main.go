// Drives the kinds of issue 10 through client-go v0.24.17's typed clients, in Protobuf
// (rest.Config.ContentType = application/vnd.kubernetes.protobuf), the way controllers and kubelets
// talk to kube-apiserver. For each kind it lists, watches (from the list's resourceVersion, one
// object by field selector), creates, gets, lists, updates, writes status through UpdateStatus
// (PV, PVC, Pod, VolumeAttachment), deletes, and for Pods also adds an ephemeral container and
// evicts through EvictV1. Every step prints one JSON line (see result); test/client-go-kinds.test.ts
// asserts them. The answers it asserts were first observed on the reference kube-apiserver 1.24.
//
//	go run . <kubeconfig> <namespace> <suffix for cluster-scoped names>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// M is the free-form data of a step.
type M = map[string]interface{}

// result is one printed line.
type result struct {
	Kind    string `json:"kind"`
	Step    string `json:"step"`
	OK      bool   `json:"ok"`
	Code    int32  `json:"code,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Data    M      `json:"data,omitempty"`
}

// step is one named call of a kind's lifecycle.
type step struct {
	name string
	run  func() (M, error)
}

var (
	ctx = context.Background()
	out = json.NewEncoder(os.Stdout)
)

func emit(kind, name string, data M, err error) {
	r := result{Kind: kind, Step: name, OK: err == nil, Data: data}
	if err != nil {
		r.Message = err.Error()
		if s, ok := err.(apierrors.APIStatus); ok {
			r.Code = s.Status().Code
			r.Reason = string(s.Status().Reason)
		}
	}
	if e := out.Encode(r); e != nil {
		fmt.Fprintln(os.Stderr, e)
		os.Exit(1)
	}
}

// lifecycle lists (for a resourceVersion), watches one object by name from there, runs the steps,
// then reports the event types the watch saw (until DELETED, at most 15 s).
func lifecycle(kind, name string, list func() (string, error), watchFrom func(rv string, sel string) (watch.Interface, error), steps []step) {
	rv, err := list()
	emit(kind, "list-before", M{"hasResourceVersion": rv != ""}, err)
	if err != nil {
		return
	}
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	w, err := watchFrom(rv, sel)
	emit(kind, "watch-start", nil, err)
	events := make(chan string, 64)
	if err == nil {
		go func() {
			defer close(events)
			for ev := range w.ResultChan() {
				s := string(ev.Type)
				if a, e := meta.Accessor(ev.Object); e == nil {
					s += " " + a.GetName()
				} else {
					s += fmt.Sprintf(" %T", ev.Object)
				}
				events <- s
			}
		}()
	}
	for _, s := range steps {
		data, err := runStep(s)
		emit(kind, s.name, data, err)
	}
	if w == nil {
		return
	}
	var seen []string
	timeout := time.After(15 * time.Second)
loop:
	for {
		select {
		case e, open := <-events:
			if !open {
				seen = append(seen, "CLOSED")
				break loop
			}
			seen = append(seen, e)
			if len(e) >= 7 && e[:7] == "DELETED" {
				break loop
			}
		case <-timeout:
			seen = append(seen, "TIMEOUT")
			break loop
		}
	}
	w.Stop()
	emit(kind, "watch-events", M{"events": seen}, nil)
}

// runStep runs one step; a panic (a step using the object an earlier failed step should have
// returned) is that step's error, so every later step and kind still runs and reports.
func runStep(s step) (data M, err error) {
	defer func() {
		if r := recover(); r != nil {
			data, err = nil, fmt.Errorf("client-side panic: %v", r)
		}
	}()
	return s.run()
}

func names(items []metav1.Object) []string {
	var n []string
	for _, i := range items {
		n = append(n, i.GetName())
	}
	sort.Strings(n)
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func labelsOf(o metav1.Object) map[string]string { return o.GetLabels() }

func deleted(o metav1.Object) M {
	return M{"deletionTimestamp": o.GetDeletionTimestamp() != nil, "finalizers": o.GetFinalizers()}
}

func qty(s string) resource.Quantity { return resource.MustParse(s) }

func ptrBool(b bool) *bool { return &b }

var manualClass = "manual"

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: kinds-client <kubeconfig> <namespace> <suffix>")
		os.Exit(2)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ns, suffix := os.Args[2], os.Args[3]
	serviceAccounts(cs, ns)
	persistentVolumes(cs, suffix)
	persistentVolumeClaims(cs, ns)
	pods(cs, ns)
	storageClasses(cs, suffix)
	volumeAttachments(cs, suffix)
	csiDrivers(cs, suffix)
	csiNodes(cs, suffix)
	csiStorageCapacities(cs, ns, suffix)
}

// rvOf is the resourceVersion of a list (any typed list), or the error.
func rvOf(l metav1.ListInterface, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return l.GetResourceVersion(), nil
}
