// A client-go v0.24.17 leader-election contender driven by test/client-go-leader-election.test.ts:
// tools/leaderelection with a LeaseLock (coordination.k8s.io/v1 over Protobuf), short timings so a
// takeover takes seconds. It prints one JSON line per event on stdout: "leading" when it becomes
// the leader, "leader" with the identity it observes, "stopped" when it stops leading. A "stop"
// line on stdin cancels its context: with ReleaseOnCancel=false the Lease is left held but no
// longer renewed, as when a leader hangs or dies.
//
//	leader-client <kubeconfig> <namespace> <lease name> <identity>
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

var out sync.Mutex

func emit(event string, v map[string]interface{}) {
	v["event"] = event
	v["at"] = time.Now().UnixMilli()
	b, _ := json.Marshal(v)
	out.Lock()
	defer out.Unlock()
	fmt.Println(string(b))
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: leader-client <kubeconfig> <namespace> <lease> <identity>")
		os.Exit(2)
	}
	kubeconfig, ns, name, id := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		emit("error", map[string]interface{}{"error": err.Error()})
		os.Exit(1)
	}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	client := kubernetes.NewForConfigOrDie(cfg)

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			if in.Text() == "stop" {
				cancel()
			}
		}
	}()

	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: name},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	emit("started", map[string]interface{}{"id": id})
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   2 * time.Second,
		RenewDeadline:   1500 * time.Millisecond,
		RetryPeriod:     500 * time.Millisecond,
		ReleaseOnCancel: false,
		Name:            name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { emit("leading", map[string]interface{}{"id": id}) },
			OnStoppedLeading: func() { emit("stopped", map[string]interface{}{"id": id}) },
			OnNewLeader:      func(leader string) { emit("leader", map[string]interface{}{"id": id, "leader": leader}) },
		},
	})
	emit("exited", map[string]interface{}{"id": id})
}
