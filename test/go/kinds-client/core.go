// The core/v1 kinds' lifecycles: ServiceAccount, PersistentVolume, PersistentVolumeClaim, Pod.
package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

func serviceAccounts(cs *kubernetes.Clientset, ns string) {
	c := cs.CoreV1().ServiceAccounts(ns)
	name := "sa-client-go"
	var cur *corev1.ServiceAccount
	lifecycle("ServiceAccount", name,
		func() (string, error) { l, err := c.List(ctx, metav1.ListOptions{}); return rvOf(l, err) },
		func(rv, sel string) (watch.Interface, error) {
			return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, FieldSelector: sel})
		},
		[]step{
			{"create", func() (M, error) {
				o, err := c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}, AutomountServiceAccountToken: ptrBool(false)}, metav1.CreateOptions{})
				if err != nil {
					return nil, err
				}
				cur = o
				return M{"name": o.Name, "namespace": o.Namespace, "automount": o.AutomountServiceAccountToken, "secrets": len(o.Secrets)}, nil
			}},
			{"get", func() (M, error) {
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return M{"sameResourceVersion": o.ResourceVersion == cur.ResourceVersion, "automount": o.AutomountServiceAccountToken}, nil
			}},
			{"list", func() (M, error) {
				l, err := c.List(ctx, metav1.ListOptions{})
				if err != nil {
					return nil, err
				}
				var n []metav1.Object
				for i := range l.Items {
					n = append(n, &l.Items[i])
				}
				return M{"found": contains(names(n), name), "hasDefault": contains(names(n), "default")}, nil
			}},
			{"update", func() (M, error) {
				o := cur.DeepCopy()
				o.Labels = map[string]string{"step": "update"}
				o.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}}
				u, err := c.Update(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return M{"labels": labelsOf(u), "imagePullSecrets": u.ImagePullSecrets, "rvChanged": u.ResourceVersion != o.ResourceVersion}, nil
			}},
			{"delete", func() (M, error) { return nil, c.Delete(ctx, name, metav1.DeleteOptions{}) }},
			{"get-after-delete", func() (M, error) { _, err := c.Get(ctx, name, metav1.GetOptions{}); return nil, err }},
		})
}

func persistentVolumes(cs *kubernetes.Clientset, suffix string) {
	c := cs.CoreV1().PersistentVolumes()
	name := "pv-client-go-" + suffix
	var cur *corev1.PersistentVolume
	pvData := func(o *corev1.PersistentVolume) M {
		return M{"reclaimPolicy": o.Spec.PersistentVolumeReclaimPolicy, "volumeMode": o.Spec.VolumeMode, "phase": o.Status.Phase, "message": o.Status.Message,
			"capacity": o.Spec.Capacity.Storage().String(), "finalizers": o.Finalizers, "labels": o.Labels}
	}
	lifecycle("PersistentVolume", name,
		func() (string, error) { l, err := c.List(ctx, metav1.ListOptions{}); return rvOf(l, err) },
		func(rv, sel string) (watch.Interface, error) {
			return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, FieldSelector: sel})
		},
		[]step{
			{"create", func() (M, error) {
				o, err := c.Create(ctx, &corev1.PersistentVolume{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: corev1.PersistentVolumeSpec{
						Capacity:    corev1.ResourceList{corev1.ResourceStorage: qty("1Gi")},
						AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						PersistentVolumeSource: corev1.PersistentVolumeSource{
							CSI: &corev1.CSIPersistentVolumeSource{Driver: "csi.example.com", VolumeHandle: "vol-1"},
						},
					},
				}, metav1.CreateOptions{})
				if err != nil {
					return nil, err
				}
				cur = o
				return pvData(o), nil
			}},
			{"get", func() (M, error) {
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				d := pvData(o)
				d["csi"] = o.Spec.CSI
				return d, nil
			}},
			{"list", func() (M, error) {
				l, err := c.List(ctx, metav1.ListOptions{})
				if err != nil {
					return nil, err
				}
				var n []metav1.Object
				for i := range l.Items {
					n = append(n, &l.Items[i])
				}
				return M{"found": contains(names(n), name)}, nil
			}},
			{"update", func() (M, error) {
				o := cur.DeepCopy()
				o.Labels = map[string]string{"step": "update"}
				o.Status.Phase = corev1.VolumeFailed // ignored: status is written through /status only
				u, err := c.Update(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return pvData(u), nil
			}},
			{"update-status", func() (M, error) {
				o := cur.DeepCopy()
				// Bound: kube's pv-protection controller (which this server runs in process, and a
				// full cluster runs in kube-controller-manager) keeps the finalizer of a Bound PV, so
				// the deletion below waits for this program on every kind of server.
				o.Status.Phase = corev1.VolumeBound
				o.Status.Message = "ready"
				o.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimDelete // ignored: spec is not written through /status
				u, err := c.UpdateStatus(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return pvData(u), nil
			}},
			{"delete", func() (M, error) { return nil, c.Delete(ctx, name, metav1.DeleteOptions{}) }},
			{"get-after-delete", func() (M, error) {
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				cur = o
				return deleted(o), nil
			}},
			{"remove-finalizers", func() (M, error) {
				if len(cur.Finalizers) == 0 {
					return M{"had": 0}, nil
				}
				o := cur.DeepCopy()
				o.Finalizers = nil
				_, err := c.Update(ctx, o, metav1.UpdateOptions{})
				if apierrors.IsNotFound(err) {
					return nil, err
				}
				return M{"had": len(cur.Finalizers)}, err
			}},
			{"get-after-finalize", func() (M, error) { _, err := c.Get(ctx, name, metav1.GetOptions{}); return nil, err }},
		})
}

func persistentVolumeClaims(cs *kubernetes.Clientset, ns string) {
	c := cs.CoreV1().PersistentVolumeClaims(ns)
	name := "pvc-client-go"
	var cur *corev1.PersistentVolumeClaim
	pvcData := func(o *corev1.PersistentVolumeClaim) M {
		d := M{"volumeMode": o.Spec.VolumeMode, "phase": o.Status.Phase, "request": o.Spec.Resources.Requests.Storage().String(),
			"storageClassName": o.Spec.StorageClassName, "finalizers": o.Finalizers, "labels": o.Labels, "accessModes": o.Spec.AccessModes}
		if q, ok := o.Status.Capacity[corev1.ResourceStorage]; ok {
			d["capacity"] = q.String()
		}
		d["statusAccessModes"] = o.Status.AccessModes
		return d
	}
	lifecycle("PersistentVolumeClaim", name,
		func() (string, error) { l, err := c.List(ctx, metav1.ListOptions{}); return rvOf(l, err) },
		func(rv, sel string) (watch.Interface, error) {
			return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, FieldSelector: sel})
		},
		[]step{
			{"create", func() (M, error) {
				o, err := c.Create(ctx, &corev1.PersistentVolumeClaim{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: corev1.PersistentVolumeClaimSpec{
						AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						Resources:   corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: qty("1Gi")}},
						// Named, so the DefaultStorageClass admission leaves it alone whatever class is default.
						StorageClassName: &manualClass,
					},
				}, metav1.CreateOptions{})
				if err != nil {
					return nil, err
				}
				cur = o
				return pvcData(o), nil
			}},
			{"get", func() (M, error) {
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return pvcData(o), nil
			}},
			{"list", func() (M, error) {
				l, err := c.List(ctx, metav1.ListOptions{})
				if err != nil {
					return nil, err
				}
				var n []metav1.Object
				for i := range l.Items {
					n = append(n, &l.Items[i])
				}
				return M{"names": names(n)}, nil
			}},
			{"update", func() (M, error) {
				o := cur.DeepCopy()
				o.Labels = map[string]string{"step": "update"}
				o.Status.Phase = corev1.ClaimLost // ignored
				u, err := c.Update(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return pvcData(u), nil
			}},
			{"update-spec-forbidden", func() (M, error) {
				o := cur.DeepCopy()
				o.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
				_, err := c.Update(ctx, o, metav1.UpdateOptions{})
				return nil, err
			}},
			{"update-status", func() (M, error) {
				o := cur.DeepCopy()
				o.Status.Phase = corev1.ClaimBound
				o.Status.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
				o.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: qty("1Gi")}
				o.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany} // ignored
				u, err := c.UpdateStatus(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return pvcData(u), nil
			}},
			// A scheduled Pod using the claim: kube's pvc-protection controller (in this server's
			// process; in kube-controller-manager on a full cluster) keeps the finalizer while it
			// exists, so the deletion below waits for this program on every kind of server.
			{"create-pod-using-claim", func() (M, error) {
				p, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: name + "-user"},
					Spec: corev1.PodSpec{
						NodeName:   "node-1",
						Containers: []corev1.Container{{Name: "main", Image: "busybox:1.36"}},
						Volumes:    []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}},
					},
				}, metav1.CreateOptions{})
				if err != nil {
					return nil, err
				}
				return M{"nodeName": p.Spec.NodeName}, nil
			}},
			{"delete", func() (M, error) { return nil, c.Delete(ctx, name, metav1.DeleteOptions{}) }},
			{"get-after-delete", func() (M, error) {
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				cur = o
				return deleted(o), nil
			}},
			{"remove-finalizers", func() (M, error) {
				if len(cur.Finalizers) == 0 {
					return M{"had": 0}, nil
				}
				o := cur.DeepCopy()
				o.Finalizers = nil
				_, err := c.Update(ctx, o, metav1.UpdateOptions{})
				return M{"had": len(cur.Finalizers)}, err
			}},
			{"get-after-finalize", func() (M, error) { _, err := c.Get(ctx, name, metav1.GetOptions{}); return nil, err }},
			{"delete-pod-using-claim", func() (M, error) {
				zero := int64(0)
				return nil, cs.CoreV1().Pods(ns).Delete(ctx, name+"-user", metav1.DeleteOptions{GracePeriodSeconds: &zero})
			}},
		})
}

func podData(o *corev1.Pod) M {
	var vols, mounts, ephemeral []string
	for _, v := range o.Spec.Volumes {
		vols = append(vols, v.Name)
	}
	c := o.Spec.Containers[0]
	for _, m := range c.VolumeMounts {
		mounts = append(mounts, m.Name+":"+m.MountPath)
	}
	for _, e := range o.Spec.EphemeralContainers {
		ephemeral = append(ephemeral, fmt.Sprintf("%s %s %s %s", e.Name, e.ImagePullPolicy, e.TerminationMessagePath, e.TerminationMessagePolicy))
	}
	var tolerations []string
	for _, t := range o.Spec.Tolerations {
		s := fmt.Sprintf("%s %s %s", t.Key, t.Operator, t.Effect)
		if t.TolerationSeconds != nil {
			s += fmt.Sprintf(" %d", *t.TolerationSeconds)
		}
		tolerations = append(tolerations, s)
	}
	var conditions []string
	for _, cond := range o.Status.Conditions {
		conditions = append(conditions, string(cond.Type)+"="+string(cond.Status))
	}
	d := M{
		"serviceAccountName": o.Spec.ServiceAccountName, "restartPolicy": o.Spec.RestartPolicy, "dnsPolicy": o.Spec.DNSPolicy,
		"schedulerName": o.Spec.SchedulerName, "terminationGracePeriodSeconds": o.Spec.TerminationGracePeriodSeconds,
		"enableServiceLinks": o.Spec.EnableServiceLinks, "priority": o.Spec.Priority, "preemptionPolicy": o.Spec.PreemptionPolicy,
		"imagePullPolicy": c.ImagePullPolicy, "terminationMessagePath": c.TerminationMessagePath, "terminationMessagePolicy": c.TerminationMessagePolicy,
		"volumes": vols, "mounts": mounts, "tolerations": tolerations, "ephemeralContainers": ephemeral,
		"phase": o.Status.Phase, "qosClass": o.Status.QOSClass, "podIP": o.Status.PodIP, "conditions": conditions, "labels": o.Labels,
	}
	for _, v := range o.Spec.Volumes {
		if v.ConfigMap != nil {
			d["configMapDefaultMode"] = v.ConfigMap.DefaultMode
		}
		if v.Projected != nil && len(v.Projected.Sources) > 0 && v.Projected.Sources[0].ServiceAccountToken != nil {
			d["tokenExpirationSeconds"] = v.Projected.Sources[0].ServiceAccountToken.ExpirationSeconds
			d["tokenPath"] = v.Projected.Sources[0].ServiceAccountToken.Path
			d["projectedDefaultMode"] = v.Projected.DefaultMode
			d["projectedSources"] = len(v.Projected.Sources)
		}
	}
	return d
}

func pods(cs *kubernetes.Clientset, ns string) {
	c := cs.CoreV1().Pods(ns)
	name := "pod-client-go"
	other := "pod-client-go-deleted"
	var cur *corev1.Pod
	newPod := func(n string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: n},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{
					Name: "main", Image: "busybox:1.36",
					VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/config"}, {Name: "scratch", MountPath: "/scratch"}},
				}},
				Volumes: []corev1.Volume{
					{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
					{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				},
			},
		}
	}
	lifecycle("Pod", name,
		func() (string, error) { l, err := c.List(ctx, metav1.ListOptions{}); return rvOf(l, err) },
		func(rv, sel string) (watch.Interface, error) {
			return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, FieldSelector: sel})
		},
		[]step{
			{"create", func() (M, error) {
				o, err := c.Create(ctx, newPod(name), metav1.CreateOptions{})
				if err != nil {
					return nil, err
				}
				cur = o
				return podData(o), nil
			}},
			{"get", func() (M, error) {
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return podData(o), nil
			}},
			{"list", func() (M, error) {
				l, err := c.List(ctx, metav1.ListOptions{})
				if err != nil {
					return nil, err
				}
				var n []metav1.Object
				for i := range l.Items {
					n = append(n, &l.Items[i])
				}
				all, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "metadata.namespace=" + ns})
				if err != nil {
					return nil, err
				}
				return M{"names": names(n), "allNamespaces": len(all.Items)}, nil
			}},
			{"update", func() (M, error) {
				o := cur.DeepCopy()
				o.Labels = map[string]string{"step": "update"}
				o.Status.Phase = corev1.PodFailed // ignored
				u, err := c.Update(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return podData(u), nil
			}},
			{"update-spec-forbidden", func() (M, error) {
				o := cur.DeepCopy()
				o.Spec.RestartPolicy = corev1.RestartPolicyNever
				_, err := c.Update(ctx, o, metav1.UpdateOptions{})
				return nil, err
			}},
			{"update-status", func() (M, error) {
				o := cur.DeepCopy()
				o.Status.Phase = corev1.PodRunning
				o.Status.PodIP = "10.1.2.3"
				o.Status.PodIPs = []corev1.PodIP{{IP: "10.1.2.3"}}
				o.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
				o.Spec.ActiveDeadlineSeconds = func(i int64) *int64 { return &i }(30) // ignored
				u, err := c.UpdateStatus(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				d := podData(u)
				d["activeDeadlineSeconds"] = u.Spec.ActiveDeadlineSeconds
				return d, nil
			}},
			{"update-ephemeral-containers", func() (M, error) {
				o := cur.DeepCopy()
				o.Spec.EphemeralContainers = append(o.Spec.EphemeralContainers, corev1.EphemeralContainer{
					EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "busybox:latest", TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullAlways},
				})
				u, err := c.UpdateEphemeralContainers(ctx, name, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return podData(u), nil
			}},
			{"evict", func() (M, error) {
				return nil, c.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})
			}},
			{"get-after-evict", func() (M, error) { _, err := c.Get(ctx, name, metav1.GetOptions{}); return nil, err }},
			{"create-second", func() (M, error) {
				o, err := c.Create(ctx, newPod(other), metav1.CreateOptions{})
				if err != nil {
					return nil, err
				}
				return M{"name": o.Name}, nil
			}},
			{"delete-second", func() (M, error) { return nil, c.Delete(ctx, other, metav1.DeleteOptions{}) }},
			{"get-second-after-delete", func() (M, error) { _, err := c.Get(ctx, other, metav1.GetOptions{}); return nil, err }},
			{"evict-missing", func() (M, error) {
				return nil, c.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})
			}},
		})
}
