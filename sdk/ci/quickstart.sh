#!/usr/bin/env bash
# CI for the SDKs, from the repository root after `npm ci` and migrations: starts the service (API and
# worker on a database of their own) and a local page for Agents to read; packs the TypeScript SDK and
# builds the Python wheel, installs each into an empty folder and runs its README's quick start against
# the service; then runs the Python tests (unit, and the contract suite against the service) on the
# installed wheel. Needs Debian's python3-httpx, python3-pytest, python3-build, python3-venv.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
PY=/usr/bin/python3
WORK=$(mktemp -d)
DB=cxs_sdk_ci_$$
PORT=${SDK_CI_PORT:-18610}
SITE_PORT=$((PORT + 1))
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  dropdb -h 127.0.0.1 -U postgres --if-exists --force "$DB" || true
  redis-cli -h 127.0.0.1 --scan --pattern "$REDIS_PREFIX:*" | xargs -r redis-cli -h 127.0.0.1 del >/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

export DATABASE_URL="postgresql://postgres@127.0.0.1:5432/$DB" REDIS_URL=redis://127.0.0.1:6379
export REDIS_PREFIX="sdk:ci-$$" STORAGE_DIR="$WORK/storage" PORT HOST=127.0.0.1 METRICS_PORT=0
export ENCRYPTION_KEY=$(node -e "process.stdout.write(require('crypto').randomBytes(32).toString('hex'))")
# The local page is on 127.0.0.1; a small rate limit without a queue lets the contract suite provoke a 429.
export ENGINE_ALLOW_PRIVATE_TARGETS=true RATE_LIMIT_MAX=100 RATE_LIMIT_QUEUE=0 RUN_WARM_PROCESSES=1 LOG_LEVEL=warn
createdb -h 127.0.0.1 -U postgres "$DB"
node --import tsx src/cli.ts migrate >/dev/null 2>&1
node --import tsx src/server.ts >"$WORK/server.log" 2>&1 &
pids+=($!)
node --import tsx src/worker.ts >"$WORK/worker.log" 2>&1 &
pids+=($!)
mkdir -p "$WORK/site" && cp sdk/ci/site.html "$WORK/site/index.html"
"$PY" -m http.server "$SITE_PORT" --bind 127.0.0.1 --directory "$WORK/site" >/dev/null 2>&1 &
pids+=($!)
for i in $(seq 1 60); do
  node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' \
    "http://127.0.0.1:$PORT/health/ready" && break
  [ "$i" = 60 ] && { cat "$WORK/server.log"; exit 1; }
  sleep 1
done
boot=$(BOOTSTRAP_PASSWORD='sdk-ci-password' node --import tsx src/cli.ts bootstrap --org SDK --email sdk@ci.test 2>/dev/null)
export CXS_URL="http://127.0.0.1:$PORT" CXS_START_URL="http://127.0.0.1:$SITE_PORT/"
CXS_API_KEY=$(node -pe 'JSON.parse(process.argv[1]).apiKey' "$boot")
CXS_SPACE_ID=$(node -pe 'JSON.parse(process.argv[1]).spaceId' "$boot")
export CXS_API_KEY CXS_SPACE_ID

echo "== TypeScript SDK: npm pack, install into an empty folder, README quick start (ESM), then CommonJS"
(cd sdk/typescript && npm pack --silent --pack-destination "$WORK" >/dev/null)
mkdir "$WORK/ts" && cd "$WORK/ts"
npm init -y >/dev/null
npm install --silent --no-audit --no-fund "$WORK"/cloud-extraction-client-*.tgz
node "$ROOT/sdk/ci/readme-block.mjs" "$ROOT/sdk/typescript/README.md" js >quickstart.mjs
node quickstart.mjs
node -e "const c = require('@cloud-extraction/client'); if (typeof c.CloudExtractionClient !== 'function') process.exit(1); console.log('CommonJS build loads')"
cd "$ROOT"

echo "== Python SDK: wheel, empty venv, README quick start, tests"
"$PY" -m build --wheel --no-isolation --outdir "$WORK/wheel" sdk/python >"$WORK/build.log" 2>&1 || {
  cat "$WORK/build.log"
  exit 1
}
rm -rf sdk/python/build sdk/python/*.egg-info
"$PY" -m venv --system-site-packages "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --no-index --no-deps "$WORK"/wheel/*.whl
mkdir "$WORK/py" && cd "$WORK/py"
node "$ROOT/sdk/ci/readme-block.mjs" "$ROOT/sdk/python/README.md" python >quickstart.py
"$WORK/venv/bin/python" quickstart.py
# The API reference from the docstrings (pydoc), then the tests. From an empty folder,
# `import cloud_extraction` is the installed wheel, not the sources.
"$WORK/venv/bin/python" "$ROOT/sdk/python/scripts/reference.py" >/dev/null
CXS_CONTRACT_REQUIRED=1 "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/sdk/python/tests"
