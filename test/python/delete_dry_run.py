"""Server-side dry-run deletes through the official Kubernetes Python client.

    python delete_dry_run.py KUBECONFIG NAMESPACE

The namespace must exist. The client sends DeleteOptions in the request BODY
(body=V1DeleteOptions(dry_run=['All'])), which is where kube-apiserver reads them from:

1. delete_namespaced_config_map(..., body=V1DeleteOptions(dry_run=['All'])) answers success and
   the ConfigMap is still there;
2. delete_collection_namespaced_config_map(..., body=V1DeleteOptions(dry_run=['All'])) answers the
   list of what it would delete and every ConfigMap is still there;
3. a body with an invalid dryRun value is refused with 422 (DeleteOptions.meta.k8s.io);
4. a real delete (no dry run) does delete.

Prints one JSON document of observations on success; exits 1 with "FAIL: <why>" on stderr
otherwise, 2 when the client library is missing.
"""
import json
import sys

try:
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException
except ImportError as e:  # the venv is missing or broken: say so, do not pretend
    print(f"FAIL: kubernetes client not importable ({e}); run test/python/setup.sh", file=sys.stderr)
    sys.exit(2)


class CheckFailed(Exception):
    pass


def check(cond, message):
    if not cond:
        raise CheckFailed(message)


def names(api, ns):
    return sorted(cm.metadata.name for cm in api.list_namespaced_config_map(ns).items)


def main():
    kubeconfig, ns = sys.argv[1], sys.argv[2]
    api = client.CoreV1Api(config.new_client_from_config(config_file=kubeconfig))
    for n in ("py-del-a", "py-del-b"):
        api.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=n, labels={"set": "dry"})))
    out = {}

    # Raw answers (_preload_content=False): this client version hands some Status bodies back as dicts.
    resp = api.delete_namespaced_config_map("py-del-a", ns, body=client.V1DeleteOptions(dry_run=["All"]), _preload_content=False)
    status = json.loads(resp.data)
    out["dryRunDelete"] = {"kind": status.get("kind"), "status": status.get("status")}
    check(status.get("status") == "Success", f"dry-run delete answered {status}")
    check(names(api, ns) == ["py-del-a", "py-del-b"], f"dry-run delete removed something: {names(api, ns)}")

    # The client types this answer as V1Status, which has no items: read the raw ConfigMapList.
    resp = api.delete_collection_namespaced_config_map(ns, label_selector="set=dry", body=client.V1DeleteOptions(dry_run=["All"]), _preload_content=False)
    listed = json.loads(resp.data)
    out["dryRunDeleteCollection"] = {"kind": listed.get("kind"), "items": sorted(i["metadata"]["name"] for i in listed.get("items", []))}
    check(out["dryRunDeleteCollection"]["items"] == ["py-del-a", "py-del-b"], f"dry-run deletecollection answered {out['dryRunDeleteCollection']}")
    check(names(api, ns) == ["py-del-a", "py-del-b"], f"dry-run deletecollection removed something: {names(api, ns)}")

    try:
        api.delete_namespaced_config_map("py-del-a", ns, body=client.V1DeleteOptions(dry_run=["Some"]))
        raise CheckFailed("dryRun=['Some'] was accepted")
    except ApiException as e:
        body = json.loads(e.body)
        out["invalidDryRun"] = {"status": e.status, "reason": body.get("reason"), "kind": body.get("details", {}).get("kind")}
        check(e.status == 422 and body.get("details", {}).get("kind") == "DeleteOptions", f"invalid dryRun answered {e.status} {e.body}")
    check(names(api, ns) == ["py-del-a", "py-del-b"], f"refused delete removed something: {names(api, ns)}")

    api.delete_namespaced_config_map("py-del-a", ns, body=client.V1DeleteOptions())
    check(names(api, ns) == ["py-del-b"], f"real delete left {names(api, ns)}")
    out["afterRealDelete"] = names(api, ns)
    out["ok"] = True
    print(json.dumps(out))


if __name__ == "__main__":
    try:
        main()
    except CheckFailed as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
