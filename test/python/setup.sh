#!/usr/bin/env bash
# Create (or refresh) the virtualenv the Python client suite runs in: /work/main/.cache/pyvenv by
# default, PYVENV=<dir> to put it elsewhere. Idempotent: an existing venv whose installed
# requirements match requirements.txt is left alone (a stamp file holds the hash of that file).
#
#   bash test/python/setup.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${PYVENV:-$root/.cache/pyvenv}"
req="$here/requirements.txt"
python="${PYTHON:-python3}"

want="$(sha256sum "$req" | cut -d' ' -f1)"
stamp="$venv/.requirements.sha256"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "python venv up to date: $venv"
  exit 0
fi

mkdir -p "$(dirname "$venv")"
if [[ ! -x "$venv/bin/python" ]]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet --upgrade pip
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet -r "$req"
"$venv/bin/python" -c 'import kubernetes; print("kubernetes client", kubernetes.__version__)'
echo "$want" > "$stamp"
echo "python venv ready: $venv"
