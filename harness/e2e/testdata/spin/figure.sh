#!/bin/sh
# figure.sh [RUNS [TRIALS [SCHEDULE]]]: the measurement of base against head in one
# run that docs/methodology.md reports. It makes a throwaway repository
# holding this target at four commits (base; a comment changed; about 10%
# and about 5% more work per request), then runs bin/harness over the four
# revisions RUNS times (default 10), TRIALS trials of 2 s each (default
# 12), on SCHEDULE (interleaved, the default, or duet), and prints each
# run's exit code and the gate's reading of each later revision. Run it from the project's root after make build, with
# nothing else running on the machine.
set -eu
runs=${1:-10}
trials=${2:-12}
schedule=${3:-interleaved}
root=$(pwd)
harness="$root/bin/harness"
work=$(mktemp -d)
repo="$work/repo"
mkdir -p "$repo/targets/spin"
cp "$root/harness/e2e/testdata/spin/Dockerfile" "$root/harness/e2e/testdata/spin/go.mod" "$root/harness/e2e/testdata/spin/main.go" "$repo/targets/spin/"
cat >"$repo/matrix.yaml" <<YAML
version: 1
images:
  debian: debian:bookworm-slim
  golang: golang:1.26-bookworm
load: {duration: 2s, warmup: 1s, trials: $trials, timeout: 2s, ready_timeout: 30s}
cpus: [1]
connections: [16]
targets:
  spin: {build: targets/spin, port: 8080}
scenarios:
  plaintext:
    path: /plaintext
    expect: {status: 200, content_type: text/plain, body: "Hello, World!"}
YAML
cd "$repo"
g() { git -c user.name=figure -c user.email=figure@localhost -c commit.gpgsign=false "$@"; }
g init -q && g add -A && g commit -qm base && g tag base
sed -i 's|^// rounds is the work per request: the commits of a test change it.|// rounds is the work per request; the commits of a test change it.|' targets/spin/main.go
g commit -qam comment && g tag same
sed -i 's/const rounds = 200/const rounds = 236/' targets/spin/main.go && g commit -qam slow10 && g tag slow10
sed -i 's/const rounds = 236/const rounds = 218/' targets/spin/main.go && g commit -qam slow5 && g tag slow5
for i in $(seq 1 "$runs"); do
	rc=0
	"$harness" run -f matrix.yaml --revisions base,same,slow10,slow5 --fail-on-regression \
		--schedule "$schedule" --no-ceiling --seed "$i" --out "$work/out-$i" --label "figure-$schedule-$i" >"$work/gate-$i.txt" 2>"$work/log-$i.txt" || rc=$?
	echo "run $i exit $rc"
	grep -E '^  (slower|faster|no difference shown|cannot tell):' "$work/gate-$i.txt" || true
done
echo "runs, logs and results in $work"
