// A controller-runtime v0.12 operator driven by test/operator.test.ts. It installs its own
// CustomResourceDefinition (demo.operator.test/v1 Widget) and waits until it is Established, then
// runs a manager with leader election on a coordination.k8s.io/v1 Lease. As leader it reconciles
// each Widget of its namespace into a ConfigMap owned by the Widget, writes the Widget's /status
// (observedGeneration, configMapName, a Ready condition), and keeps a finalizer on it: on deletion
// it deletes the ConfigMap itself (no garbage collector needed) and then removes the finalizer.
// ConfigMaps are watched as metadata only (PartialObjectMetadata) and read uncached; each change
// of a ConfigMap is recorded as an Event on its Widget. SIGTERM or SIGINT stops it and releases
// the Lease.
//
// It prints one JSON line per event on stdout ("established", "leading", "finalizer-added",
// "reconciled", "finalized", "exited"); controller-runtime's log goes to stderr.
//
//	operator <kubeconfig> <namespace> <identity> [lease seconds (4); renew deadline 3/4 of it]
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

const finalizer = "demo.operator.test/configmap-cleanup"

var (
	out sync.Mutex
	id  string
)

func emit(event string, v map[string]interface{}) {
	v["event"] = event
	v["id"] = id
	v["at"] = time.Now().UnixMilli()
	b, _ := json.Marshal(v)
	out.Lock()
	defer out.Unlock()
	fmt.Println(string(b))
}

func fail(err error) {
	emit("error", map[string]interface{}{"error": err.Error()})
	os.Exit(1)
}

type reconciler struct {
	client.Client
	scheme   *runtime.Scheme
	recorder record.EventRecorder
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var w Widget
	if err := r.Get(ctx, req.NamespacedName, &w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cmName := w.Name + "-widget"
	if !w.DeletionTimestamp.IsZero() {
		if !controllerutil.ContainsFinalizer(&w, finalizer) {
			return ctrl.Result{}, nil
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: cmName}}
		if err := r.Delete(ctx, cm); err != nil && !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		}
		// A JSON merge patch without resourceVersion, as controller-runtime's MergeFrom makes it.
		orig := w.DeepCopy()
		controllerutil.RemoveFinalizer(&w, finalizer)
		if err := r.Patch(ctx, &w, client.MergeFrom(orig)); err != nil {
			return ctrl.Result{}, err
		}
		emit("finalized", map[string]interface{}{"widget": w.Name, "configMap": cmName})
		return ctrl.Result{}, nil
	}
	if !controllerutil.ContainsFinalizer(&w, finalizer) {
		controllerutil.AddFinalizer(&w, finalizer)
		if err := r.Update(ctx, &w); err != nil {
			return ctrl.Result{}, err
		}
		emit("finalizer-added", map[string]interface{}{"widget": w.Name})
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: cmName}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels["demo.operator.test/widget"] = w.Name
		cm.Data = map[string]string{"message": w.Spec.Message, "color": w.Spec.Color, "size": strconv.Itoa(int(w.Spec.Size))}
		return controllerutil.SetControllerReference(&w, cm, r.scheme)
	})
	if err != nil {
		return ctrl.Result{}, err
	}

	// Written unconditionally: an unchanged status must be a no-op update on the server (no new
	// resourceVersion, no watch event), or this would reconcile forever.
	w.Status.ObservedGeneration = w.Generation
	w.Status.ConfigMapName = cmName
	meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, Reason: "ConfigMapSynced", ObservedGeneration: w.Generation,
		Message: "ConfigMap " + cmName + " holds the spec",
	})
	if err := r.Status().Update(ctx, &w); err != nil {
		return ctrl.Result{}, err
	}
	if op != controllerutil.OperationResultNone {
		r.recorder.Eventf(&w, corev1.EventTypeNormal, "ConfigMapSynced", "ConfigMap %s %s", cmName, op)
	}
	emit("reconciled", map[string]interface{}{"widget": w.Name, "generation": w.Generation, "configMap": string(op), "resourceVersion": w.ResourceVersion})
	return ctrl.Result{}, nil
}

func main() {
	if len(os.Args) != 4 && len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: operator <kubeconfig> <namespace> <identity> [lease seconds (4)]")
		os.Exit(2)
	}
	kubeconfig, ns := os.Args[1], os.Args[2]
	id = os.Args[3]
	lease := 4 * time.Second
	if len(os.Args) == 5 {
		n, err := strconv.Atoi(os.Args[4])
		if err != nil || n < 2 {
			fmt.Fprintln(os.Stderr, "lease seconds: an integer of at least 2")
			os.Exit(2)
		}
		lease = time.Duration(n) * time.Second
	}
	ctrl.SetLogger(zap.New(zap.UseDevMode(true)))
	ctx := ctrl.SetupSignalHandler()

	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fail(err)
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextv1.AddToScheme, addKnownTypes} {
		if err := add(scheme); err != nil {
			fail(err)
		}
	}

	direct, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		fail(err)
	}
	if err := installCRD(ctx, direct); err != nil {
		fail(err)
	}
	emit("established", map[string]interface{}{"crd": crdName})

	renew, retry := lease*3/4, 500*time.Millisecond
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Namespace:              ns,
		MetricsBindAddress:     "0",
		HealthProbeBindAddress: "0",
		// ConfigMaps are watched as metadata only (PartialObjectMetadata) and read from the
		// server, so no full ConfigMap informer runs.
		ClientDisableCacheFor:         []client.Object{&corev1.ConfigMap{}},
		LeaderElection:                true,
		LeaderElectionResourceLock:    resourcelock.LeasesResourceLock,
		LeaderElectionNamespace:       ns,
		LeaderElectionID:              "widget-operator",
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &lease,
		RenewDeadline:                 &renew,
		RetryPeriod:                   &retry,
	})
	if err != nil {
		fail(err)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		For(&Widget{}).
		Owns(&corev1.ConfigMap{}, builder.OnlyMetadata).
		Complete(&reconciler{Client: mgr.GetClient(), scheme: scheme, recorder: mgr.GetEventRecorderFor("widget-operator")})
	if err != nil {
		fail(err)
	}
	go func() {
		select {
		case <-mgr.Elected():
			emit("leading", map[string]interface{}{})
		case <-ctx.Done():
		}
	}()
	emit("started", map[string]interface{}{})
	if err := mgr.Start(ctx); err != nil {
		fail(err)
	}
	emit("exited", map[string]interface{}{})
}
