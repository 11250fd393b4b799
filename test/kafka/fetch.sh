#!/usr/bin/env bash
# Fetch the Apache Kafka broker jars from Maven Central into
#   <repo>/.cache/kafka/<version>/libs
# with Maven, using a local Maven repository under <repo>/.cache/m2, so a clean clone (CI) and a
# developer machine do the same thing. Idempotent: when the libs directory is complete (it has a
# .complete marker, written last) nothing is downloaded.
#
#   bash test/kafka/fetch.sh            # prints the libs directory on its last line
#
# Environment:
#   KAFKA_VERSION    the release to fetch (default: <kafka.version> in test/kafka/pom.xml)
#   KAFKA_CACHE_DIR  where the versions go (default: <repo>/.cache/kafka)
#   MAVEN_REPO_DIR   the Maven local repository (default: <repo>/.cache/m2)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pom="$here/pom.xml"

# the pom holds the one default version, so broker.ts and this script cannot disagree
default_version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom" | head -n 1)"
version="${KAFKA_VERSION:-$default_version}"
cache="${KAFKA_CACHE_DIR:-$root/.cache/kafka}"
m2="${MAVEN_REPO_DIR:-$root/.cache/m2}"
dest="$cache/$version/libs"

if [[ -f "$dest/.complete" ]]; then
  echo "kafka $version: jars already in $dest"
  echo "$dest"
  exit 0
fi

command -v mvn >/dev/null 2>&1 || { echo "fetch.sh: mvn is not on PATH (Maven 3.6.3+ is needed)" >&2; exit 1; }
command -v java >/dev/null 2>&1 || { echo "fetch.sh: java is not on PATH (Kafka 4.x brokers need Java 17+)" >&2; exit 1; }

mkdir -p "$cache/$version" "$m2"

# Two test processes may fetch at once; the second waits for the first, then finds the marker.
exec 9>"$cache/$version/.fetch.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
  if [[ -f "$dest/.complete" ]]; then
    echo "kafka $version: jars already in $dest (fetched by another process)"
    echo "$dest"
    exit 0
  fi
fi

# Download into a scratch directory and rename it into place, so an interrupted fetch never
# leaves a libs directory that looks usable.
tmp="$cache/$version/libs.partial.$$"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT

echo "kafka $version: fetching broker jars with Maven (local repository $m2)"
started=$(date +%s)
mvn -B -q -Dstyle.color=never -f "$pom" \
  -Dmaven.repo.local="$m2" \
  -Dkafka.version="$version" \
  -DincludeScope=runtime \
  -DoutputDirectory="$tmp" \
  -DoverWriteReleases=false -DoverWriteSnapshots=false \
  org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies 2>&1 \
  | sed 's/\x1b\[[0-9;]*m//g' # Maven 3.8 prints color resets even when quiet and not on a terminal

if ! ls "$tmp"/kafka_2.13-"$version".jar >/dev/null 2>&1; then
  echo "fetch.sh: Maven finished but kafka_2.13-$version.jar is not in $tmp" >&2
  exit 1
fi

rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
touch "$dest/.complete"
count=$(find "$dest" -name '*.jar' | wc -l)
size=$(du -sh "$dest" | cut -f1)
echo "kafka $version: $count jars ($size) in $dest, took $(( $(date +%s) - started ))s"
echo "$dest"
