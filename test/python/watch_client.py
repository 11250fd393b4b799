"""Drive the API server with the official Kubernetes Python client (kubernetes-client/python).

    python watch_client.py [KUBECONFIG] [NAMESPACE]

KUBECONFIG defaults to $KUBECONFIG_PATH, then $KUBECONFIG; NAMESPACE to $PY_NAMESPACE, then
"pyclient" (created when missing). Steps, each checked here:

1. ConfigMaps: create, get, list (also paged with limit/_continue), replace, delete.
2. A live watch (watch.Watch().stream on list_namespaced_config_map, allow_watch_bookmarks=True,
   timeout_seconds) from the list's resourceVersion sees ADDED, MODIFIED, DELETED of one object in
   order, each with the version its write returned.
3. A resumed watch (resource_version=<rv>) yields exactly the changes after rv, nothing else.
4. A streaming list (send_initial_events=True) ends its initial ADDED events with a BOOKMARK the
   client's bookmark handling must pass through.

Prints one JSON document (the observations) on success; exits 1 with "FAIL: <why>" on stderr
otherwise, 2 when the client library is missing.
"""
import json
import os
import sys
import threading

try:
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException
except ImportError as e:  # the venv is missing or broken: say so, do not pretend
    print(f"FAIL: kubernetes client not importable ({e}); run test/python/setup.sh", file=sys.stderr)
    sys.exit(2)

WATCH_TIMEOUT_S = 15  # a safety net: the live watch is stopped as soon as DELETED arrives
RESUME_TIMEOUT_S = 2  # long enough for the replay; the stream must end with nothing more


class CheckFailed(Exception):
    pass


def check(cond, message):
    if not cond:
        raise CheckFailed(message)


def cm(name, value):
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={"suite": "python"}), data={"k": value})


def describe(event):
    """'TYPE name@rv' for an event (BOOKMARK events carry only a version)."""
    raw = event["raw_object"]
    meta = raw.get("metadata", {}) if isinstance(raw, dict) else {}
    return f"{event['type']} {meta.get('name', '')}@{meta.get('resourceVersion', '')}"


def ensure_namespace(v1, ns):
    try:
        v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    except ApiException as e:
        check(e.status == 409, f"create namespace {ns}: HTTP {e.status} {e.reason}")


def crud(v1, ns):
    """Step 1. Returns the versions the writes answered with."""
    created = v1.create_namespaced_config_map(ns, cm("py-a", "1"))
    rv_add = created.metadata.resource_version
    check(rv_add and created.metadata.uid, f"create returned metadata: {created.metadata}")
    got = v1.read_namespaced_config_map("py-a", ns)
    check(got.data == {"k": "1"} and got.metadata.resource_version == rv_add, f"get after create: {got.data} @{got.metadata.resource_version}")
    listed = v1.list_namespaced_config_map(ns, label_selector="suite=python")
    check([i.metadata.name for i in listed.items] == ["py-a"], f"list: {[i.metadata.name for i in listed.items]}")
    check(int(listed.metadata.resource_version) >= int(rv_add), "list resourceVersion not older than the create")
    got.data = {"k": "2"}
    replaced = v1.replace_namespaced_config_map("py-a", ns, got)
    rv_mod = replaced.metadata.resource_version
    check(replaced.data == {"k": "2"} and int(rv_mod) > int(rv_add), f"replace: {replaced.data} @{rv_mod}")
    stale = cm("py-a", "3")
    stale.metadata.resource_version = rv_add
    try:
        v1.replace_namespaced_config_map("py-a", ns, stale)
        raise CheckFailed("replace with a stale resourceVersion succeeded")
    except ApiException as e:
        check(e.status == 409, f"stale replace: HTTP {e.status}, want 409")
    v1.delete_namespaced_config_map("py-a", ns)
    try:
        v1.read_namespaced_config_map("py-a", ns)
        raise CheckFailed("get after delete succeeded")
    except ApiException as e:
        check(e.status == 404, f"get after delete: HTTP {e.status}, want 404")
    return {"added": rv_add, "modified": rv_mod}


def paged_list(v1, ns):
    """limit/_continue through the client: pages at one version, all items once."""
    for i in range(5):
        v1.create_namespaced_config_map(ns, cm(f"page-{i}", str(i)))
    names, token, versions, pages = [], None, set(), 0
    while True:
        page = v1.list_namespaced_config_map(ns, limit=2, _continue=token, label_selector="suite=python")
        pages += 1
        names += [i.metadata.name for i in page.items]
        versions.add(page.metadata.resource_version)
        token = page.metadata._continue
        if not token:
            break
        check(page.metadata.remaining_item_count is None, "remainingItemCount with a selector")
    check(names == [f"page-{i}" for i in range(5)], f"paged names: {names}")
    check(len(versions) == 1, f"one resourceVersion over the pages: {versions}")
    for i in range(5):
        v1.delete_namespaced_config_map(f"page-{i}", ns)
    return {"pages": pages, "items": len(names)}


def live_watch(v1, ns):
    """Step 2: watch from the list's version while step 1 writes."""
    start = v1.list_namespaced_config_map(ns).metadata.resource_version
    seen, errors = [], []
    w = watch.Watch()

    def run():
        try:
            for event in w.stream(v1.list_namespaced_config_map, ns, resource_version=start,
                                  allow_watch_bookmarks=True, timeout_seconds=WATCH_TIMEOUT_S):
                if event["type"] == "BOOKMARK":
                    continue  # progress only; the client keeps its resource_version from it
                if event["raw_object"]["metadata"]["name"] != "py-a":
                    continue
                seen.append(event)
                if event["type"] == "DELETED":
                    w.stop()
        except Exception as e:  # reported by the main thread
            errors.append(repr(e))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    versions = crud(v1, ns)
    t.join(WATCH_TIMEOUT_S + 5)
    check(not t.is_alive(), "live watch did not end")
    check(not errors, f"live watch raised: {errors}")
    types = [e["type"] for e in seen]
    check(types == ["ADDED", "MODIFIED", "DELETED"], f"live watch events: {[describe(e) for e in seen]}")
    check(seen[0]["object"].metadata.resource_version == versions["added"], f"ADDED version {describe(seen[0])} != {versions['added']}")
    check(seen[1]["object"].metadata.resource_version == versions["modified"], f"MODIFIED version {describe(seen[1])} != {versions['modified']}")
    check(seen[1]["object"].data == {"k": "2"}, f"MODIFIED data: {seen[1]['object'].data}")
    check(isinstance(seen[0]["object"], client.V1ConfigMap), "events deserialize to V1ConfigMap")
    rvs = [int(e["raw_object"]["metadata"]["resourceVersion"]) for e in seen]
    check(rvs == sorted(rvs) and len(set(rvs)) == 3, f"versions increase: {rvs}")
    return {"from": start, "events": [describe(e) for e in seen]}


def resumed_watch(v1, ns):
    """Step 3: writes, then a watch resumed at the first write's version."""
    b1 = v1.create_namespaced_config_map(ns, cm("py-b", "1")).metadata.resource_version
    b2 = v1.patch_namespaced_config_map("py-b", ns, {"data": {"k": "2"}}).metadata.resource_version
    c1 = v1.create_namespaced_config_map(ns, cm("py-c", "1")).metadata.resource_version
    v1.delete_namespaced_config_map("py-b", ns)
    events = [describe(e) for e in watch.Watch().stream(
        v1.list_namespaced_config_map, ns, resource_version=b1,
        allow_watch_bookmarks=True, timeout_seconds=RESUME_TIMEOUT_S) if e["type"] != "BOOKMARK"]
    check(len(events) == 3, f"resume from {b1}: want 3 events, got {events}")
    check(events[:2] == [f"MODIFIED py-b@{b2}", f"ADDED py-c@{c1}"], f"resume from {b1}: {events}")
    check(events[2].startswith("DELETED py-b@") and int(events[2].split("@")[1]) > int(c1), f"resume from {b1}: {events}")
    return {"from": b1, "events": events}


def streaming_list(v1, ns):
    """Step 4: initial events end with a BOOKMARK; the client passes it through."""
    events = list(watch.Watch().stream(
        v1.list_namespaced_config_map, ns, send_initial_events=True,
        resource_version_match="NotOlderThan", allow_watch_bookmarks=True, timeout_seconds=RESUME_TIMEOUT_S))
    # kube-root-ca.crt is in every namespace (the root CA publisher, as kube-controller-manager's).
    described = [d for d in (describe(e) for e in events) if not d.startswith("ADDED kube-root-ca.crt@")]
    check([d.split("@")[0] for d in described[:1]] == ["ADDED py-c"], f"streaming list: {described}")
    bookmarks = [e for e in events if e["type"] == "BOOKMARK"]
    check(bookmarks, f"streaming list: no BOOKMARK in {described}")
    annotations = bookmarks[0]["raw_object"]["metadata"].get("annotations", {})
    check(annotations.get("k8s.io/initial-events-end") == "true", f"bookmark annotations: {annotations}")
    v1.delete_namespaced_config_map("py-c", ns)
    return {"events": described}


def main():
    kubeconfig = (sys.argv[1] if len(sys.argv) > 1 else None) or os.environ.get("KUBECONFIG_PATH") or os.environ.get("KUBECONFIG")
    ns = (sys.argv[2] if len(sys.argv) > 2 else None) or os.environ.get("PY_NAMESPACE") or "pyclient"
    if not kubeconfig:
        print("FAIL: no kubeconfig (argv[1], KUBECONFIG_PATH or KUBECONFIG)", file=sys.stderr)
        return 1
    try:
        config.load_kube_config(config_file=kubeconfig)
    except Exception as e:
        print(f"FAIL: cannot load kubeconfig {kubeconfig}: {e}", file=sys.stderr)
        return 1
    v1 = client.CoreV1Api()
    try:
        ensure_namespace(v1, ns)
        result = {"ok": True, "namespace": ns}
        result["watch"] = live_watch(v1, ns)
        result["paging"] = paged_list(v1, ns)
        result["resume"] = resumed_watch(v1, ns)
        result["streamingList"] = streaming_list(v1, ns)
    except CheckFailed as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    except ApiException as e:
        print(f"FAIL: unexpected API error HTTP {e.status} {e.reason}: {e.body}", file=sys.stderr)
        return 1
    except Exception as e:  # connection refused, TLS, a client bug: one clear line, then the trace
        import traceback
        traceback.print_exc()
        print(f"FAIL: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
