#!/usr/bin/env bash
# Proves that docker compose hands every documented setting to the containers that read settings:
# renders the compose configuration (docker-compose.yml, and with docker-compose.s3.yml on top) with a
# sample `.env` that gives every variable of .env.example a value of its own, and checks that in the
# migrate, api and worker services each variable has that value, except the ones the compose files
# decide themselves (container addresses and paths), where the compose value must win over `.env`.
# Needs docker-compose (v1, or v2 as `docker compose`) and python3 with PyYAML (a dependency of Debian's
# docker-compose); no Docker daemon. Usage: scripts/check-compose-env.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if command -v docker-compose >/dev/null 2>&1; then compose=(docker-compose); else compose=(docker compose); fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$root/docker-compose.yml" "$root/docker-compose.s3.yml" "$work/"
# Every variable .env.example names (set or commented out), each with its own value (a port number for
# *_PORT, which compose publishes); COMPOSE_* settings steer compose itself and are left out.
port=20000
grep -oE '^(# *)?[A-Z][A-Z0-9_]*=' "$root/.env.example" | sed -E 's/^# *//; s/=$//' | grep -v '^COMPOSE_' |
  sort -u | while read -r name; do
    if [[ $name == *_PORT ]]; then port=$((port + 1)); echo "$name=$port"; else echo "$name=sample-$name"; fi
  done >"$work/.env"
[ -s "$work/.env" ] || { echo "check-compose-env: no variables found in .env.example" >&2; exit 1; }

render() { (cd "$work" && "${compose[@]}" "$@" config); }
# A fresh clone has no `.env`: compose must still render, reading .env.example's defaults.
cp "$root/.env.example" "$work/"
render -f docker-compose.yml >/dev/null
# A copied `.env` names itself as the containers' settings file, as .env.example's first setting does.
echo "COMPOSE_ENV_FILE=.env" >>"$work/.env"
render -f docker-compose.yml >"$work/base.yml"
render -f docker-compose.yml -f docker-compose.s3.yml >"$work/s3.yml"

python3 - "$work" <<'PY'
import sys, yaml
work = sys.argv[1]
sample = dict(line.rstrip('\n').split('=', 1) for line in open(f'{work}/.env') if '=' in line)
# The values the compose files decide for every app service, and per service on top.
decided = {'DATABASE_URL', 'REDIS_URL', 'STORAGE_DIR', 'ENCRYPTION_KEY_FILE', 'HOST', 'CHROMIUM_PATH'}
per_service = {'migrate': set(), 'api': {'PORT', 'METRICS_HOST', 'METRICS_PORT'}, 'worker': {'METRICS_HOST', 'METRICS_PORT'}}
problems = []
for variant, extra in (('base', set()), ('s3', {'STORAGE_DRIVER'})):
    services = yaml.safe_load(open(f'{work}/{variant}.yml'))['services']
    for name, own in per_service.items():
        env = {k: ('' if v is None else str(v)) for k, v in (services[name].get('environment') or {}).items()}
        fixed = decided | own | extra
        for key, value in sample.items():
            got = env.get(key)
            if key in fixed:
                if got is None or got == value:
                    problems.append(f'{variant}/{name}: {key} should keep the compose value, got {got!r}')
            elif got != value:
                problems.append(f'{variant}/{name}: {key} from .env did not arrive (got {got!r})')
if problems:
    print('check-compose-env: FAILED\n  ' + '\n  '.join(problems), file=sys.stderr)
    sys.exit(1)
print(f'check-compose-env: {len(sample)} variables of .env.example reach migrate, api and worker '
      '(docker-compose.yml, and with docker-compose.s3.yml); the compose-decided ones keep their values')
PY
