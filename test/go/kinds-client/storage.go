// The storage.k8s.io/v1 kinds' lifecycles: StorageClass, VolumeAttachment, CSIDriver, CSINode,
// CSIStorageCapacity.
package main

import (
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

func storageClasses(cs *kubernetes.Clientset, suffix string) {
	c := cs.StorageV1().StorageClasses()
	name := "sc-client-go-" + suffix
	var cur *storagev1.StorageClass
	scData := func(o *storagev1.StorageClass) M {
		return M{"provisioner": o.Provisioner, "parameters": o.Parameters, "reclaimPolicy": o.ReclaimPolicy, "volumeBindingMode": o.VolumeBindingMode,
			"allowVolumeExpansion": o.AllowVolumeExpansion, "labels": o.Labels}
	}
	lifecycle("StorageClass", name,
		func() (string, error) { l, err := c.List(ctx, metav1.ListOptions{}); return rvOf(l, err) },
		func(rv, sel string) (watch.Interface, error) {
			return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, FieldSelector: sel})
		},
		[]step{
			{"create", func() (M, error) {
				o, err := c.Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "example.com/csi", Parameters: map[string]string{"type": "fast"}}, metav1.CreateOptions{})
				if err != nil {
					return nil, err
				}
				cur = o
				return scData(o), nil
			}},
			{"get", func() (M, error) {
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return scData(o), nil
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
				o.AllowVolumeExpansion = ptrBool(true)
				u, err := c.Update(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return scData(u), nil
			}},
			{"update-immutable", func() (M, error) {
				o := cur.DeepCopy()
				o.Parameters = map[string]string{"type": "slow"}
				_, err := c.Update(ctx, o, metav1.UpdateOptions{})
				return nil, err
			}},
			{"delete", func() (M, error) { return nil, c.Delete(ctx, name, metav1.DeleteOptions{}) }},
			{"get-after-delete", func() (M, error) { _, err := c.Get(ctx, name, metav1.GetOptions{}); return nil, err }},
		})
}

func volumeAttachments(cs *kubernetes.Clientset, suffix string) {
	c := cs.StorageV1().VolumeAttachments()
	name := "va-client-go-" + suffix
	var cur *storagev1.VolumeAttachment
	pv := "pv-for-va"
	vaData := func(o *storagev1.VolumeAttachment) M {
		return M{"attacher": o.Spec.Attacher, "nodeName": o.Spec.NodeName, "persistentVolumeName": o.Spec.Source.PersistentVolumeName,
			"attached": o.Status.Attached, "attachmentMetadata": o.Status.AttachmentMetadata, "labels": o.Labels}
	}
	lifecycle("VolumeAttachment", name,
		func() (string, error) { l, err := c.List(ctx, metav1.ListOptions{}); return rvOf(l, err) },
		func(rv, sel string) (watch.Interface, error) {
			return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, FieldSelector: sel})
		},
		[]step{
			{"create", func() (M, error) {
				o, err := c.Create(ctx, &storagev1.VolumeAttachment{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec:       storagev1.VolumeAttachmentSpec{Attacher: "csi.example.com", NodeName: "node-1", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pv}},
					Status:     storagev1.VolumeAttachmentStatus{Attached: true}, // dropped on create
				}, metav1.CreateOptions{})
				if err != nil {
					return nil, err
				}
				cur = o
				return vaData(o), nil
			}},
			{"get", func() (M, error) {
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return vaData(o), nil
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
				o.Status.Attached = true // ignored
				u, err := c.Update(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return vaData(u), nil
			}},
			{"update-spec-forbidden", func() (M, error) {
				o := cur.DeepCopy()
				o.Spec.NodeName = "node-2"
				_, err := c.Update(ctx, o, metav1.UpdateOptions{})
				return nil, err
			}},
			{"update-status", func() (M, error) {
				o := cur.DeepCopy()
				o.Status.Attached = true
				o.Status.AttachmentMetadata = map[string]string{"devicePath": "/dev/xvdb"}
				u, err := c.UpdateStatus(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return vaData(u), nil
			}},
			{"delete", func() (M, error) { return nil, c.Delete(ctx, name, metav1.DeleteOptions{}) }},
			{"get-after-delete", func() (M, error) { _, err := c.Get(ctx, name, metav1.GetOptions{}); return nil, err }},
		})
}

func csiDrivers(cs *kubernetes.Clientset, suffix string) {
	c := cs.StorageV1().CSIDrivers()
	name := "csi-" + suffix + ".example.com"
	var cur *storagev1.CSIDriver
	drvData := func(o *storagev1.CSIDriver) M {
		return M{"attachRequired": o.Spec.AttachRequired, "podInfoOnMount": o.Spec.PodInfoOnMount, "requiresRepublish": o.Spec.RequiresRepublish,
			"storageCapacity": o.Spec.StorageCapacity, "fsGroupPolicy": o.Spec.FSGroupPolicy, "volumeLifecycleModes": o.Spec.VolumeLifecycleModes, "labels": o.Labels}
	}
	lifecycle("CSIDriver", name,
		func() (string, error) { l, err := c.List(ctx, metav1.ListOptions{}); return rvOf(l, err) },
		func(rv, sel string) (watch.Interface, error) {
			return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, FieldSelector: sel})
		},
		[]step{
			{"create", func() (M, error) {
				o, err := c.Create(ctx, &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
				if err != nil {
					return nil, err
				}
				cur = o
				return drvData(o), nil
			}},
			{"get", func() (M, error) {
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return drvData(o), nil
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
				o.Spec.StorageCapacity = ptrBool(true) // mutable in 1.24
				u, err := c.Update(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return drvData(u), nil
			}},
			{"update-immutable", func() (M, error) {
				o := cur.DeepCopy()
				o.Spec.AttachRequired = ptrBool(false)
				_, err := c.Update(ctx, o, metav1.UpdateOptions{})
				return nil, err
			}},
			{"delete", func() (M, error) { return nil, c.Delete(ctx, name, metav1.DeleteOptions{}) }},
			{"get-after-delete", func() (M, error) { _, err := c.Get(ctx, name, metav1.GetOptions{}); return nil, err }},
		})
}

func csiNodes(cs *kubernetes.Clientset, suffix string) {
	c := cs.StorageV1().CSINodes()
	name := "node-client-go-" + suffix
	var cur *storagev1.CSINode
	nodeData := func(o *storagev1.CSINode) M {
		var drivers []string
		for _, d := range o.Spec.Drivers {
			s := fmt.Sprintf("%s %s %v", d.Name, d.NodeID, d.TopologyKeys)
			if d.Allocatable != nil && d.Allocatable.Count != nil {
				s += fmt.Sprintf(" %d", *d.Allocatable.Count)
			}
			drivers = append(drivers, s)
		}
		return M{"drivers": drivers, "labels": o.Labels}
	}
	lifecycle("CSINode", name,
		func() (string, error) { l, err := c.List(ctx, metav1.ListOptions{}); return rvOf(l, err) },
		func(rv, sel string) (watch.Interface, error) {
			return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, FieldSelector: sel})
		},
		[]step{
			{"create", func() (M, error) {
				count := int32(10)
				o, err := c.Create(ctx, &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
					{Name: "csi.example.com", NodeID: "node-id-1", TopologyKeys: []string{"topology.example.com/zone"}, Allocatable: &storagev1.VolumeNodeResources{Count: &count}},
				}}}, metav1.CreateOptions{})
				if err != nil {
					return nil, err
				}
				cur = o
				return nodeData(o), nil
			}},
			{"get", func() (M, error) {
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return nodeData(o), nil
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
				o.Spec.Drivers = append(o.Spec.Drivers, storagev1.CSINodeDriver{Name: "other.example.com", NodeID: "node-id-2"})
				u, err := c.Update(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return nodeData(u), nil
			}},
			{"delete", func() (M, error) { return nil, c.Delete(ctx, name, metav1.DeleteOptions{}) }},
			{"get-after-delete", func() (M, error) { _, err := c.Get(ctx, name, metav1.GetOptions{}); return nil, err }},
		})
}

func csiStorageCapacities(cs *kubernetes.Clientset, ns, suffix string) {
	c := cs.StorageV1().CSIStorageCapacities(ns)
	name := "cap-client-go"
	var cur *storagev1.CSIStorageCapacity
	capData := func(o *storagev1.CSIStorageCapacity) M {
		d := M{"storageClassName": o.StorageClassName, "labels": o.Labels}
		if o.Capacity != nil {
			d["capacity"] = o.Capacity.String()
		}
		if o.MaximumVolumeSize != nil {
			d["maximumVolumeSize"] = o.MaximumVolumeSize.String()
		}
		if o.NodeTopology != nil {
			d["nodeTopology"] = o.NodeTopology.MatchLabels
		}
		return d
	}
	lifecycle("CSIStorageCapacity", name,
		func() (string, error) { l, err := c.List(ctx, metav1.ListOptions{}); return rvOf(l, err) },
		func(rv, sel string) (watch.Interface, error) {
			return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, FieldSelector: sel})
		},
		[]step{
			{"create", func() (M, error) {
				capacity, max := qty("10Gi"), qty("2000M")
				o, err := c.Create(ctx, &storagev1.CSIStorageCapacity{
					ObjectMeta:        metav1.ObjectMeta{Name: name},
					StorageClassName:  "sc-client-go-" + suffix,
					NodeTopology:      &metav1.LabelSelector{MatchLabels: map[string]string{"topology.example.com/zone": "a"}},
					Capacity:          &capacity,
					MaximumVolumeSize: &max,
				}, metav1.CreateOptions{})
				if err != nil {
					return nil, err
				}
				cur = o
				return capData(o), nil
			}},
			{"get", func() (M, error) {
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return capData(o), nil
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
				q := qty("20Gi")
				o.Capacity = &q
				u, err := c.Update(ctx, o, metav1.UpdateOptions{})
				if err != nil {
					return nil, err
				}
				cur = u
				return capData(u), nil
			}},
			{"update-immutable", func() (M, error) {
				o := cur.DeepCopy()
				o.StorageClassName = "other"
				_, err := c.Update(ctx, o, metav1.UpdateOptions{})
				return nil, err
			}},
			{"delete", func() (M, error) { return nil, c.Delete(ctx, name, metav1.DeleteOptions{}) }},
			{"get-after-delete", func() (M, error) { _, err := c.Get(ctx, name, metav1.GetOptions{}); return nil, err }},
		})
}
