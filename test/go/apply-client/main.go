// Server-side apply through client-go v0.24.17's typed Apply with ApplyConfigurations, as
// controllers use it, against the server of the kubeconfig given as first argument (namespace as
// second). Prints a JSON summary for test/client-go-apply.test.ts.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

type summary struct {
	Created         map[string]string `json:"created"`
	CreatedManagers []string          `json:"createdManagers"`
	ConflictIs409   bool              `json:"conflictIs409"`
	ConflictMessage string            `json:"conflictMessage"`
	Forced          map[string]string `json:"forced"`
	Extracted       map[string]string `json:"extracted"`
	ProtobufData    map[string]string `json:"protobufData"`
	ServicePorts    []string          `json:"servicePorts"`
	StatusIngress   string            `json:"statusIngress"`
	StatusManagers  []string          `json:"statusManagers"`
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func managers(fs []metav1.ManagedFieldsEntry) []string {
	out := []string{}
	for _, e := range fs {
		s := e.Manager + "/" + string(e.Operation)
		if e.Subresource != "" {
			s += "/" + e.Subresource
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func main() {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	must(err)
	ns := os.Args[2]
	cs, err := kubernetes.NewForConfig(cfg)
	must(err)
	ctx := context.Background()
	var s summary

	cms := cs.CoreV1().ConfigMaps(ns)
	cm, err := cms.Apply(ctx, corev1ac.ConfigMap("go-applied", ns).WithData(map[string]string{"a": "1", "b": "2"}), metav1.ApplyOptions{FieldManager: "go-app"})
	must(err)
	s.Created = cm.Data
	s.CreatedManagers = managers(cm.ManagedFields)

	_, err = cms.Apply(ctx, corev1ac.ConfigMap("go-applied", ns).WithData(map[string]string{"a": "x"}), metav1.ApplyOptions{FieldManager: "go-other"})
	s.ConflictIs409 = apierrors.IsConflict(err)
	if err != nil {
		s.ConflictMessage = err.Error()
	}
	cm, err = cms.Apply(ctx, corev1ac.ConfigMap("go-applied", ns).WithData(map[string]string{"a": "x"}), metav1.ApplyOptions{FieldManager: "go-other", Force: true})
	must(err)
	s.Forced = cm.Data

	// What "go-app" still owns, read back from managedFields (client-go's Extract).
	ex, err := corev1ac.ExtractConfigMap(cm, "go-app")
	must(err)
	s.Extracted = ex.Data

	// A protobuf client: Apply sends YAML, the answer comes back as protobuf.
	pcfg := *cfg
	pcfg.ContentType = "application/vnd.kubernetes.protobuf"
	pcs, err := kubernetes.NewForConfig(&pcfg)
	must(err)
	pcm, err := pcs.CoreV1().ConfigMaps(ns).Apply(ctx, corev1ac.ConfigMap("go-pb", ns).WithData(map[string]string{"p": "b"}), metav1.ApplyOptions{FieldManager: "go-pb"})
	must(err)
	s.ProtobufData = pcm.Data

	svcs := cs.CoreV1().Services(ns)
	svc, err := svcs.Apply(ctx, corev1ac.Service("go-svc", ns).WithSpec(corev1ac.ServiceSpec().
		WithType(corev1.ServiceTypeLoadBalancer).
		WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80), corev1ac.ServicePort().WithName("dns").WithPort(53).WithProtocol(corev1.ProtocolUDP))), metav1.ApplyOptions{FieldManager: "go-app"})
	must(err)
	for _, p := range svc.Spec.Ports {
		s.ServicePorts = append(s.ServicePorts, fmt.Sprintf("%s:%d/%s", p.Name, p.Port, p.Protocol))
	}
	svc, err = svcs.ApplyStatus(ctx, corev1ac.Service("go-svc", ns).WithStatus(corev1ac.ServiceStatus().
		WithLoadBalancer(corev1ac.LoadBalancerStatus().WithIngress(corev1ac.LoadBalancerIngress().WithIP("192.0.2.10")))), metav1.ApplyOptions{FieldManager: "go-lb"})
	must(err)
	if len(svc.Status.LoadBalancer.Ingress) > 0 {
		s.StatusIngress = svc.Status.LoadBalancer.Ingress[0].IP
	}
	s.StatusManagers = managers(svc.ManagedFields)

	out, err := json.Marshal(s)
	must(err)
	fmt.Println(string(out))
}
