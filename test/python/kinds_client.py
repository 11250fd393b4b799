"""CRUD of the issue 10 kinds through the official Kubernetes Python client's typed API objects.

    python kinds_client.py KUBECONFIG NAMESPACE SUFFIX

For each of ServiceAccount, PersistentVolume, PersistentVolumeClaim, Pod (CoreV1Api) and
StorageClass, VolumeAttachment, CSIDriver, CSINode, CSIStorageCapacity (StorageV1Api): create from
the client's model classes, read, list, patch, replace, read/patch `/status` (PV, PVC, Pod,
VolumeAttachment), delete (clearing the protection finalizers of PV/PVC, as their controller would),
read after delete; a Pod is also evicted (create_namespaced_pod_eviction). NAMESPACE must exist and
have its `default` ServiceAccount; SUFFIX makes cluster-scoped names unique.

Prints one JSON line per step: {"kind", "step", "ok", "status", "reason", "data"} (status/reason of
an ApiException); test/python-kinds.test.ts compares them with kinds_expected.jsonl, the reference
kube-apiserver 1.24.17's answers. Exits 2 when the client library is missing.
"""
import json
import sys

try:
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException
except ImportError as e:  # the venv is missing or broken: say so, do not pretend
    print(f"FAIL: kubernetes client not importable ({e}); run test/python/setup.sh", file=sys.stderr)
    sys.exit(2)


def emit(kind, step, fn):
    """Run one step and print its line; returns what fn returned (None on an API error)."""
    line = {"kind": kind, "step": step, "ok": True}
    result = None
    try:
        result, data = fn()
        if data is not None:
            line["data"] = data
    except ApiException as e:
        line["ok"] = False
        line["status"] = e.status
        try:
            body = json.loads(e.body)
            line["reason"] = body.get("reason")
            line["message"] = body.get("message")
        except (TypeError, ValueError):
            line["reason"] = e.reason
    except Exception as e:  # a client-side failure (deserialization, missing field): record it, go on
        line["ok"] = False
        line["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(line, sort_keys=True), flush=True)
    return result


def meta(name, **kw):
    return client.V1ObjectMeta(name=name, **kw)


def labels(o):
    return o.metadata.labels


def lifecycle(kind, name, ops):
    """ops: ordered (step, fn) pairs; fn returns (object, data)."""
    for step, fn in ops:
        emit(kind, step, fn)


def kind_of(r):
    """The kind of a delete/evict answer: a model object, or a dict when the client did not map it."""
    return r.get("kind") if isinstance(r, dict) else getattr(r, "kind", type(r).__name__)


def names(lst):
    return sorted(i.metadata.name for i in lst.items)


def gone(read):
    def fn():
        o = read()
        return o, {"deletionTimestamp": o.metadata.deletion_timestamp is not None, "finalizers": o.metadata.finalizers}
    return fn


def service_accounts(v1, ns):
    name = "sa-python"
    lifecycle("ServiceAccount", name, [
        ("create", lambda: (lambda o: (o, {"name": o.metadata.name, "automount": o.automount_service_account_token, "secrets": o.secrets}))(
            v1.create_namespaced_service_account(ns, client.V1ServiceAccount(metadata=meta(name), automount_service_account_token=False)))),
        ("read", lambda: (lambda o: (o, {"automount": o.automount_service_account_token, "kind": o.kind, "apiVersion": o.api_version}))(
            v1.read_namespaced_service_account(name, ns))),
        ("list", lambda: (lambda l: (l, {"names": names(l), "kind": l.kind}))(v1.list_namespaced_service_account(ns))),
        ("patch", lambda: (lambda o: (o, {"labels": labels(o), "imagePullSecrets": [s.name for s in o.image_pull_secrets or []]}))(
            v1.patch_namespaced_service_account(name, ns, {"metadata": {"labels": {"step": "patch"}}, "imagePullSecrets": [{"name": "pull"}]}))),
        ("replace", lambda: replace(lambda: v1.read_namespaced_service_account(name, ns), lambda o: v1.replace_namespaced_service_account(name, ns, o),
                                    lambda o: setattr(o, "automount_service_account_token", True), lambda o: {"automount": o.automount_service_account_token, "labels": labels(o)})),
        ("delete", lambda: (lambda r: (r, {"kind": r.kind}))(v1.delete_namespaced_service_account(name, ns))),
        ("read-after-delete", lambda: (v1.read_namespaced_service_account(name, ns), {})),
    ])


def replace(read, write, change, data):
    o = read()
    change(o)
    u = write(o)
    return u, data(u)


def persistent_volumes(v1, suffix):
    name = f"pv-python-{suffix}"

    def pv_data(o):
        return {"reclaimPolicy": o.spec.persistent_volume_reclaim_policy, "volumeMode": o.spec.volume_mode, "phase": o.status.phase,
                "message": o.status.message, "capacity": o.spec.capacity, "labels": labels(o), "finalizers": o.metadata.finalizers,
                "hostPath": {"path": o.spec.host_path.path, "type": o.spec.host_path.type}}
    body = client.V1PersistentVolume(metadata=meta(name), spec=client.V1PersistentVolumeSpec(
        capacity={"storage": "5Gi"}, access_modes=["ReadWriteOnce"], storage_class_name="manual",
        host_path=client.V1HostPathVolumeSource(path="/mnt/data")))
    lifecycle("PersistentVolume", name, [
        ("create", lambda: (lambda o: (o, pv_data(o)))(v1.create_persistent_volume(body))),
        ("read", lambda: (lambda o: (o, pv_data(o)))(v1.read_persistent_volume(name))),
        ("list", lambda: (lambda l: (l, {"found": name in names(l)}))(v1.list_persistent_volume())),
        ("patch", lambda: (lambda o: (o, pv_data(o)))(v1.patch_persistent_volume(name, {"metadata": {"labels": {"step": "patch"}}, "status": {"phase": "Failed"}}))),
        ("replace", lambda: replace(lambda: v1.read_persistent_volume(name), lambda o: v1.replace_persistent_volume(name, o),
                                    lambda o: setattr(o.spec, "persistent_volume_reclaim_policy", "Delete"), pv_data)),
        ("read-status", lambda: (lambda o: (o, pv_data(o)))(v1.read_persistent_volume_status(name))),
        # Bound: kube's pv-protection controller (in this server's process; in kube-controller-manager
        # on a full cluster) keeps a Bound PV's finalizer, so the deletion waits for this script everywhere.
        ("patch-status", lambda: (lambda o: (o, pv_data(o)))(v1.patch_persistent_volume_status(name, {"status": {"phase": "Bound", "message": "ok"}, "spec": {"storageClassName": "ignored"}}))),
        ("delete", lambda: (lambda o: (o, {"kind": kind_of(o)}))(v1.delete_persistent_volume(name))),
        ("read-after-delete", gone(lambda: v1.read_persistent_volume(name))),
        ("clear-finalizers", lambda: (None, {"kind": type(v1.patch_persistent_volume(name, {"metadata": {"finalizers": None}})).__name__})),
        ("read-after-finalize", lambda: (v1.read_persistent_volume(name), {})),
    ])


def persistent_volume_claims(v1, ns):
    name = "pvc-python"

    def pvc_data(o):
        return {"volumeMode": o.spec.volume_mode, "phase": o.status.phase, "requests": o.spec.resources.requests, "capacity": o.status.capacity,
                "accessModes": o.spec.access_modes, "storageClassName": o.spec.storage_class_name, "labels": labels(o),
                "conditions": [(c.type, c.status) for c in o.status.conditions or []], "finalizers": o.metadata.finalizers}
    body = client.V1PersistentVolumeClaim(metadata=meta(name), spec=client.V1PersistentVolumeClaimSpec(
        access_modes=["ReadWriteOnce"], storage_class_name="manual", resources=client.V1VolumeResourceRequirements(requests={"storage": "500M"})))
    lifecycle("PersistentVolumeClaim", name, [
        ("create", lambda: (lambda o: (o, pvc_data(o)))(v1.create_namespaced_persistent_volume_claim(ns, body))),
        ("read", lambda: (lambda o: (o, pvc_data(o)))(v1.read_namespaced_persistent_volume_claim(name, ns))),
        ("list", lambda: (lambda l: (l, {"names": names(l)}))(v1.list_namespaced_persistent_volume_claim(ns))),
        ("list-all-namespaces", lambda: (lambda l: (l, {"found": name in names(l)}))(v1.list_persistent_volume_claim_for_all_namespaces(field_selector=f"metadata.namespace={ns}"))),
        ("patch", lambda: (lambda o: (o, pvc_data(o)))(v1.patch_namespaced_persistent_volume_claim(name, ns, {"metadata": {"labels": {"step": "patch"}}}))),
        ("patch-spec-forbidden", lambda: (v1.patch_namespaced_persistent_volume_claim(name, ns, {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}), {})),
        ("read-status", lambda: (lambda o: (o, pvc_data(o)))(v1.read_namespaced_persistent_volume_claim_status(name, ns))),
        ("patch-status", lambda: (lambda o: (o, pvc_data(o)))(v1.patch_namespaced_persistent_volume_claim_status(name, ns, {
            "status": {"phase": "Bound", "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                       "conditions": [{"type": "Resizing", "status": "True"}]}}))),
        # A scheduled Pod using the claim: the pvc-protection controller keeps the finalizer meanwhile.
        ("create-pod-using-claim", lambda: (lambda o: (o, {"nodeName": o.spec.node_name}))(v1.create_namespaced_pod(ns, client.V1Pod(
            metadata=meta(f"{name}-user"), spec=client.V1PodSpec(node_name="node-1", containers=[client.V1Container(name="main", image="busybox:1.36")],
                                                                  volumes=[client.V1Volume(name="data", persistent_volume_claim=client.V1PersistentVolumeClaimVolumeSource(claim_name=name))]))))),
        ("delete", lambda: (lambda o: (o, {"kind": kind_of(o)}))(v1.delete_namespaced_persistent_volume_claim(name, ns))),
        ("read-after-delete", gone(lambda: v1.read_namespaced_persistent_volume_claim(name, ns))),
        ("clear-finalizers", lambda: (None, {"kind": type(v1.patch_namespaced_persistent_volume_claim(name, ns, {"metadata": {"finalizers": None}})).__name__})),
        ("read-after-finalize", lambda: (v1.read_namespaced_persistent_volume_claim(name, ns), {})),
        ("delete-pod-using-claim", lambda: (lambda o: (o, {"kind": kind_of(o)}))(v1.delete_namespaced_pod(f"{name}-user", ns, grace_period_seconds=0))),
    ])


def pods(v1, ns):
    name = "pod-python"

    def pod_data(o):
        c = o.spec.containers[0]
        return {"serviceAccountName": o.spec.service_account_name, "restartPolicy": o.spec.restart_policy, "dnsPolicy": o.spec.dns_policy,
                "terminationGracePeriodSeconds": o.spec.termination_grace_period_seconds, "imagePullPolicy": c.image_pull_policy,
                "volumes": [v.name for v in o.spec.volumes], "secretDefaultMode": o.spec.volumes[0].secret.default_mode,
                "phase": o.status.phase, "hostIP": o.status.host_ip, "conditions": [(x.type, x.status) for x in o.status.conditions or []],
                "labels": labels(o), "activeDeadlineSeconds": o.spec.active_deadline_seconds, "qosClass": o.status.qos_class,
                "resources": c.resources.to_dict() if c.resources else None}
    body = client.V1Pod(metadata=meta(name), spec=client.V1PodSpec(
        containers=[client.V1Container(name="app", image="nginx", resources=client.V1ResourceRequirements(limits={"cpu": "500m", "memory": "128Mi"}),
                                       volume_mounts=[client.V1VolumeMount(name="creds", mount_path="/creds")])],
        volumes=[client.V1Volume(name="creds", secret=client.V1SecretVolumeSource(secret_name="creds"))]))
    lifecycle("Pod", name, [
        ("create", lambda: (lambda o: (o, pod_data(o)))(v1.create_namespaced_pod(ns, body))),
        ("read", lambda: (lambda o: (o, pod_data(o)))(v1.read_namespaced_pod(name, ns))),
        ("list", lambda: (lambda l: (l, {"names": names(l)}))(v1.list_namespaced_pod(ns))),
        ("patch", lambda: (lambda o: (o, pod_data(o)))(v1.patch_namespaced_pod(name, ns, {"metadata": {"labels": {"step": "patch"}}, "spec": {"activeDeadlineSeconds": 600}}))),
        ("patch-spec-forbidden", lambda: (v1.patch_namespaced_pod(name, ns, {"spec": {"containers": [{"name": "app", "image": "nginx", "imagePullPolicy": "Never"}]}}), {})),
        ("read-status", lambda: (lambda o: (o, pod_data(o)))(v1.read_namespaced_pod_status(name, ns))),
        ("patch-status", lambda: (lambda o: (o, pod_data(o)))(v1.patch_namespaced_pod_status(name, ns, {
            "status": {"phase": "Running", "hostIP": "192.168.0.10", "conditions": [{"type": "PodScheduled", "status": "True"}]}}))),
        ("evict", lambda: (lambda r: (r, {"kind": kind_of(r)}))(v1.create_namespaced_pod_eviction(name, ns, client.V1Eviction(
            metadata=meta(name, namespace=ns), delete_options=client.V1DeleteOptions(grace_period_seconds=0))))),
        ("read-after-evict", lambda: (v1.read_namespaced_pod(name, ns), {})),
        ("create-again", lambda: (lambda o: (o, {"phase": o.status.phase}))(v1.create_namespaced_pod(ns, body))),
        ("delete", lambda: (lambda o: (o, {"kind": kind_of(o)}))(v1.delete_namespaced_pod(name, ns))),
        ("read-after-delete", lambda: (v1.read_namespaced_pod(name, ns), {})),
    ])


def storage_classes(s1, suffix):
    name = f"sc-python-{suffix}"

    def sc_data(o):
        return {"provisioner": o.provisioner, "reclaimPolicy": o.reclaim_policy, "volumeBindingMode": o.volume_binding_mode,
                "parameters": o.parameters, "labels": labels(o), "allowedTopologies": [t.to_dict() for t in o.allowed_topologies or []]}
    body = client.V1StorageClass(metadata=meta(name), provisioner="kubernetes.io/no-provisioner", volume_binding_mode="WaitForFirstConsumer",
                                 allowed_topologies=[client.V1TopologySelectorTerm(match_label_expressions=[
                                     client.V1TopologySelectorLabelRequirement(key="topology.kubernetes.io/zone", values=["a", "b"])])])
    lifecycle("StorageClass", name, [
        ("create", lambda: (lambda o: (o, sc_data(o)))(s1.create_storage_class(body))),
        ("read", lambda: (lambda o: (o, sc_data(o)))(s1.read_storage_class(name))),
        ("list", lambda: (lambda l: (l, {"found": name in names(l)}))(s1.list_storage_class())),
        ("patch", lambda: (lambda o: (o, sc_data(o)))(s1.patch_storage_class(name, {"metadata": {"labels": {"step": "patch"}}}))),
        ("patch-immutable", lambda: (s1.patch_storage_class(name, {"reclaimPolicy": "Retain"}), {})),
        ("delete", lambda: (lambda o: (o, {"kind": kind_of(o)}))(s1.delete_storage_class(name))),
        ("read-after-delete", lambda: (s1.read_storage_class(name), {})),
    ])


def volume_attachments(s1, suffix):
    name = f"va-python-{suffix}"

    def va_data(o):
        return {"attacher": o.spec.attacher, "nodeName": o.spec.node_name, "pv": o.spec.source.persistent_volume_name,
                "attached": o.status.attached if o.status else None, "attachError": o.status.attach_error.message if o.status and o.status.attach_error else None,
                "labels": labels(o)}
    body = client.V1VolumeAttachment(metadata=meta(name), spec=client.V1VolumeAttachmentSpec(
        attacher="csi.example.com", node_name="node-py", source=client.V1VolumeAttachmentSource(persistent_volume_name="pv-py")))
    lifecycle("VolumeAttachment", name, [
        ("create", lambda: (lambda o: (o, va_data(o)))(s1.create_volume_attachment(body))),
        ("read", lambda: (lambda o: (o, va_data(o)))(s1.read_volume_attachment(name))),
        ("list", lambda: (lambda l: (l, {"found": name in names(l)}))(s1.list_volume_attachment())),
        ("patch", lambda: (lambda o: (o, va_data(o)))(s1.patch_volume_attachment(name, {"metadata": {"labels": {"step": "patch"}}, "status": {"attached": True}}))),
        ("read-status", lambda: (lambda o: (o, va_data(o)))(s1.read_volume_attachment_status(name))),
        ("patch-status", lambda: (lambda o: (o, va_data(o)))(s1.patch_volume_attachment_status(name, {
            "status": {"attached": False, "attachError": {"message": "timeout", "time": "2024-01-01T00:00:00Z"}}}))),
        ("delete", lambda: (lambda o: (o, {"kind": kind_of(o)}))(s1.delete_volume_attachment(name))),
        ("read-after-delete", lambda: (s1.read_volume_attachment(name), {})),
    ])


def csi_drivers(s1, suffix):
    name = f"py-{suffix}.csi.example.com"

    def d_data(o):
        s = o.spec
        return {"attachRequired": s.attach_required, "podInfoOnMount": s.pod_info_on_mount, "requiresRepublish": s.requires_republish,
                "storageCapacity": s.storage_capacity, "fsGroupPolicy": s.fs_group_policy, "volumeLifecycleModes": s.volume_lifecycle_modes,
                "tokenRequests": [t.to_dict() for t in s.token_requests or []], "labels": labels(o)}
    body = client.V1CSIDriver(metadata=meta(name), spec=client.V1CSIDriverSpec(fs_group_policy="File", token_requests=[client.StorageV1TokenRequest(audience="api")]))
    lifecycle("CSIDriver", name, [
        ("create", lambda: (lambda o: (o, d_data(o)))(s1.create_csi_driver(body))),
        ("read", lambda: (lambda o: (o, d_data(o)))(s1.read_csi_driver(name))),
        ("list", lambda: (lambda l: (l, {"found": name in names(l)}))(s1.list_csi_driver())),
        ("patch", lambda: (lambda o: (o, d_data(o)))(s1.patch_csi_driver(name, {"metadata": {"labels": {"step": "patch"}}, "spec": {"requiresRepublish": True}}))),
        ("patch-immutable", lambda: (s1.patch_csi_driver(name, {"spec": {"podInfoOnMount": True}}), {})),
        ("delete", lambda: (lambda o: (o, {"kind": kind_of(o)}))(s1.delete_csi_driver(name))),
        ("read-after-delete", lambda: (s1.read_csi_driver(name), {})),
    ])


def csi_nodes(s1, suffix):
    name = f"node-python-{suffix}"

    def n_data(o):
        return {"drivers": [d.to_dict() for d in o.spec.drivers], "labels": labels(o)}
    body = client.V1CSINode(metadata=meta(name), spec=client.V1CSINodeSpec(drivers=[
        client.V1CSINodeDriver(name="csi.example.com", node_id="n-1", allocatable=client.V1VolumeNodeResources(count=3))]))
    lifecycle("CSINode", name, [
        ("create", lambda: (lambda o: (o, n_data(o)))(s1.create_csi_node(body))),
        ("read", lambda: (lambda o: (o, n_data(o)))(s1.read_csi_node(name))),
        ("list", lambda: (lambda l: (l, {"found": name in names(l)}))(s1.list_csi_node())),
        ("patch", lambda: (lambda o: (o, n_data(o)))(s1.patch_csi_node(name, {"metadata": {"labels": {"step": "patch"}}}))),
        ("patch-invalid", lambda: (s1.patch_csi_node(name, {"spec": {"drivers": [{"name": "csi.example.com", "nodeID": "n-1", "allocatable": {"count": -1}}]}}), {})),
        ("delete", lambda: (lambda o: (o, {"kind": kind_of(o)}))(s1.delete_csi_node(name))),
        ("read-after-delete", lambda: (s1.read_csi_node(name), {})),
    ])


def csi_storage_capacities(s1, ns):
    name = "cap-python"

    def c_data(o):
        return {"storageClassName": o.storage_class_name, "capacity": o.capacity, "maximumVolumeSize": o.maximum_volume_size, "labels": labels(o)}
    body = client.V1CSIStorageCapacity(metadata=meta(name), storage_class_name="manual", capacity="1.5Gi", maximum_volume_size="1000Mi")
    lifecycle("CSIStorageCapacity", name, [
        ("create", lambda: (lambda o: (o, c_data(o)))(s1.create_namespaced_csi_storage_capacity(ns, body))),
        ("read", lambda: (lambda o: (o, c_data(o)))(s1.read_namespaced_csi_storage_capacity(name, ns))),
        ("list", lambda: (lambda l: (l, {"names": names(l)}))(s1.list_namespaced_csi_storage_capacity(ns))),
        ("list-all-namespaces", lambda: (lambda l: (l, {"found": name in names(l)}))(s1.list_csi_storage_capacity_for_all_namespaces(field_selector=f"metadata.namespace={ns}"))),
        ("patch", lambda: (lambda o: (o, c_data(o)))(s1.patch_namespaced_csi_storage_capacity(name, ns, {"metadata": {"labels": {"step": "patch"}}, "capacity": "2Gi"}))),
        ("patch-immutable", lambda: (s1.patch_namespaced_csi_storage_capacity(name, ns, {"nodeTopology": {"matchLabels": {"zone": "b"}}}), {})),
        ("delete", lambda: (lambda o: (o, {"kind": kind_of(o)}))(s1.delete_namespaced_csi_storage_capacity(name, ns))),
        ("read-after-delete", lambda: (s1.read_namespaced_csi_storage_capacity(name, ns), {})),
    ])


def main():
    if len(sys.argv) != 4:
        print("usage: kinds_client.py KUBECONFIG NAMESPACE SUFFIX", file=sys.stderr)
        sys.exit(2)
    kubeconfig, ns, suffix = sys.argv[1:]
    api = config.new_client_from_config(config_file=kubeconfig)
    v1 = client.CoreV1Api(api)
    s1 = client.StorageV1Api(api)
    service_accounts(v1, ns)
    persistent_volumes(v1, suffix)
    persistent_volume_claims(v1, ns)
    pods(v1, ns)
    storage_classes(s1, suffix)
    volume_attachments(s1, suffix)
    csi_drivers(s1, suffix)
    csi_nodes(s1, suffix)
    csi_storage_capacities(s1, ns)


if __name__ == "__main__":
    main()
