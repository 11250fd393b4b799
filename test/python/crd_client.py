"""Custom resources through the official Kubernetes Python client's CustomObjectsApi.

    python crd_client.py KUBECONFIG NAMESPACE GROUP

Creates two CRDs of GROUP with ApiextensionsV1Api (a namespaced `pywidgets` with the status and
scale subresources, a cluster-scoped `pyclusters` with status), waits until both are Established,
then for a namespaced and a cluster custom resource: create, get, list, patch (merge), patch_status,
get_scale / patch_scale / replace_scale (namespaced and cluster), delete, get after delete (404).
Prints one JSON document of what the client saw; the suite (test/python-crd.test.ts) asserts it.
The CRDs are deleted at the end. Exits 1 with "FAIL: <why>" on an unexpected error, 2 when the
client library is missing.
"""
import json
import sys
import time

try:
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException
except ImportError as e:  # the venv is missing or broken: say so, do not pretend
    print(f"FAIL: kubernetes client not importable ({e}); run test/python/setup.sh", file=sys.stderr)
    sys.exit(2)


def crd(group, plural, kind, scope, subresources):
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": scope,
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
            "versions": [{
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": subresources,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {"type": "object", "properties": {
                            "replicas": {"type": "integer"},
                            "color": {"type": "string", "default": "red"},
                        }},
                        "status": {"type": "object", "properties": {
                            "replicas": {"type": "integer"},
                            "phase": {"type": "string"},
                        }},
                    },
                }},
            }],
        },
    }


def established(ext, name):
    for _ in range(150):
        c = ext.read_custom_resource_definition(name)
        if any(x.type == "Established" and x.status == "True" for x in (c.status.conditions or [])):
            return True
        time.sleep(0.1)
    return False


def summary(obj):
    """What the suite compares: kind, apiVersion, name, namespace, generation, spec, status."""
    m = obj.get("metadata", {})
    return {k: v for k, v in {
        "kind": obj.get("kind"), "apiVersion": obj.get("apiVersion"), "name": m.get("name"),
        "namespace": m.get("namespace"), "generation": m.get("generation"),
        "spec": obj.get("spec"), "status": obj.get("status"),
    }.items() if v is not None}


def delete_summary(d):
    details = dict(d.get("details") or {})
    details["uid"] = bool(details.get("uid"))
    return {"kind": d.get("kind"), "status": d.get("status"), "details": details}


def scale_summary(s):
    return {"kind": s.get("kind"), "apiVersion": s.get("apiVersion"), "name": s["metadata"].get("name"), "spec": s.get("spec"), "status": s.get("status")}


def main():
    kubeconfig, ns, group = sys.argv[1], sys.argv[2], sys.argv[3]
    api_client = config.new_client_from_config(config_file=kubeconfig)
    ext = client.ApiextensionsV1Api(api_client)
    co = client.CustomObjectsApi(api_client)
    out = {}

    scale = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}
    ext.create_custom_resource_definition(crd(group, "pywidgets", "PyWidget", "Namespaced", {"status": {}, "scale": scale}))
    ext.create_custom_resource_definition(crd(group, "pyclusters", "PyCluster", "Cluster", {"status": {}, "scale": scale}))
    out["established"] = [established(ext, f"pywidgets.{group}"), established(ext, f"pyclusters.{group}")]
    # Served once Established; the first requests may still race the handler: retry briefly.
    for _ in range(50):
        try:
            co.list_namespaced_custom_object(group, "v1", ns, "pywidgets")
            co.list_cluster_custom_object(group, "v1", "pyclusters")
            break
        except ApiException:
            time.sleep(0.1)

    # Namespaced
    body = {"apiVersion": f"{group}/v1", "kind": "PyWidget", "metadata": {"name": "w1"}, "spec": {"replicas": 1}, "status": {"phase": "dropped"}}
    out["ns_create"] = summary(co.create_namespaced_custom_object(group, "v1", ns, "pywidgets", body))
    out["ns_get"] = summary(co.get_namespaced_custom_object(group, "v1", ns, "pywidgets", "w1"))
    co.create_namespaced_custom_object(group, "v1", ns, "pywidgets", {**body, "metadata": {"name": "w2", "labels": {"tier": "b"}}})
    lst = co.list_namespaced_custom_object(group, "v1", ns, "pywidgets")
    out["ns_list"] = {"kind": lst["kind"], "apiVersion": lst["apiVersion"], "names": [i["metadata"]["name"] for i in lst["items"]]}
    sel = co.list_namespaced_custom_object(group, "v1", ns, "pywidgets", label_selector="tier=b")
    out["ns_list_selector"] = [i["metadata"]["name"] for i in sel["items"]]
    out["ns_patch"] = summary(co.patch_namespaced_custom_object(group, "v1", ns, "pywidgets", "w1", {"spec": {"color": "blue"}}))
    out["ns_patch_status"] = summary(co.patch_namespaced_custom_object_status(group, "v1", ns, "pywidgets", "w1", {"status": {"replicas": 1, "phase": "Running"}}))
    out["ns_get_scale"] = scale_summary(co.get_namespaced_custom_object_scale(group, "v1", ns, "pywidgets", "w1"))
    out["ns_patch_scale"] = scale_summary(co.patch_namespaced_custom_object_scale(group, "v1", ns, "pywidgets", "w1", {"spec": {"replicas": 4}}))
    cur = co.get_namespaced_custom_object_scale(group, "v1", ns, "pywidgets", "w1")
    cur["spec"]["replicas"] = 6
    out["ns_replace_scale"] = scale_summary(co.replace_namespaced_custom_object_scale(group, "v1", ns, "pywidgets", "w1", cur))
    out["ns_after_scale"] = summary(co.get_namespaced_custom_object(group, "v1", ns, "pywidgets", "w1"))
    d = co.delete_namespaced_custom_object(group, "v1", ns, "pywidgets", "w1")
    out["ns_delete"] = delete_summary(d)
    try:
        co.get_namespaced_custom_object(group, "v1", ns, "pywidgets", "w1")
        out["ns_get_deleted"] = "found"
    except ApiException as e:
        out["ns_get_deleted"] = {"status": e.status, "message": json.loads(e.body)["message"]}

    # Cluster-scoped
    cbody = {"apiVersion": f"{group}/v1", "kind": "PyCluster", "metadata": {"name": f"c1-{ns}"}, "spec": {"replicas": 2}}
    out["cl_create"] = summary(co.create_cluster_custom_object(group, "v1", "pyclusters", cbody))
    out["cl_get"] = summary(co.get_cluster_custom_object(group, "v1", "pyclusters", f"c1-{ns}"))
    out["cl_list"] = [i["metadata"]["name"] for i in co.list_cluster_custom_object(group, "v1", "pyclusters")["items"]]
    out["cl_patch"] = summary(co.patch_cluster_custom_object(group, "v1", "pyclusters", f"c1-{ns}", {"spec": {"replicas": 3}}))
    out["cl_patch_status"] = summary(co.patch_cluster_custom_object_status(group, "v1", "pyclusters", f"c1-{ns}", {"status": {"phase": "Ready"}}))
    out["cl_get_scale"] = scale_summary(co.get_cluster_custom_object_scale(group, "v1", "pyclusters", f"c1-{ns}"))
    out["cl_patch_scale"] = scale_summary(co.patch_cluster_custom_object_scale(group, "v1", "pyclusters", f"c1-{ns}", {"spec": {"replicas": 7}}))
    d = co.delete_cluster_custom_object(group, "v1", "pyclusters", f"c1-{ns}")
    out["cl_delete"] = delete_summary(d)
    try:
        co.get_cluster_custom_object(group, "v1", "pyclusters", f"c1-{ns}")
        out["cl_get_deleted"] = "found"
    except ApiException as e:
        out["cl_get_deleted"] = {"status": e.status, "message": json.loads(e.body)["message"]}

    ext.delete_custom_resource_definition(f"pywidgets.{group}")
    ext.delete_custom_resource_definition(f"pyclusters.{group}")
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    try:
        main()
    except ApiException as e:
        print(f"FAIL: unexpected API error {e.status}: {e.body}", file=sys.stderr)
        sys.exit(1)
