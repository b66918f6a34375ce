#!/usr/bin/env bash
# A real S3-compatible server on 127.0.0.1 for tests and CI: Ceph's radosgw on a one-node cluster
# (one monitor, one memstore OSD, no authentication between daemons), in the spirit of Ceph's vstart.sh.
#
#   scripts/s3-server.sh start   installs Ceph from Debian if needed, starts the cluster (idempotent)
#   scripts/s3-server.sh env     prints S3_* settings for the running server (shell `export` lines)
#   scripts/s3-server.sh stop    stops it and removes its state (memstore: nothing survives anyway)
#   scripts/s3-server.sh acquire PID   starts it if needed and counts process PID (a test run) as a user
#   scripts/s3-server.sh release PID   PID is done with it: stopped when no user is left alive, if an
#                                      acquire started it (a server started by `start` is left running)
#
# State lives in S3_SERVER_DIR (default /tmp/cxs-s3-server); ports are picked free at start.
set -euo pipefail

DIR="${S3_SERVER_DIR:-/tmp/cxs-s3-server}"
CONF="$DIR/ceph.conf"
ACCESS_KEY="cxs-test-access-key"
SECRET_KEY="cxs-test-secret-key-0123456789abcdef"
BUCKET="${S3_SERVER_BUCKET:-cxs-test}"

log() { printf 's3-server: %s\n' "$*" >&2; }

install() {
  if command -v radosgw >/dev/null && command -v ceph-mon >/dev/null && command -v ceph-osd >/dev/null; then return; fi
  log "installing Ceph (radosgw, ceph-mon, ceph-osd) from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends radosgw ceph-mon ceph-osd ceph-common >/dev/null
}

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# True when every daemon of the recorded cluster is alive and the gateway answers. State left by a cluster
# whose processes are gone (a machine restarted, a session ended) is not running: start replaces it.
running() {
  [ -f "$DIR/rgw.port" ] && [ -f "$DIR/pids" ] || return 1
  local pid
  while read -r pid; do kill -0 "$pid" 2>/dev/null || return 1; done <"$DIR/pids"
  curl -fs -o /dev/null --max-time 5 "http://127.0.0.1:$(cat "$DIR/rgw.port")/"
}

print_env() {
  cat <<EOF
export S3_ENDPOINT=http://127.0.0.1:$(cat "$DIR/rgw.port")
export S3_REGION=us-east-1
export S3_BUCKET=$BUCKET
export S3_ACCESS_KEY_ID=$ACCESS_KEY
export S3_SECRET_ACCESS_KEY=$SECRET_KEY
export S3_FORCE_PATH_STYLE=true
EOF
}

start() {
  if running; then log "already running on port $(cat "$DIR/rgw.port")"; return; fi
  stop_quietly
  install
  mkdir -p "$DIR"
  local mon_port rgw_port fsid
  mon_port=$(free_port)
  rgw_port=$(free_port)
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat >"$CONF" <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
auth cluster required = none
auth service required = none
auth client required = none
ms bind ipv6 = false
# Without cephx only crc mode exists; radosgw asks for secure by default and would never connect.
ms client mode = crc
ms mon client mode = crc
rgw init timeout = 60
public addr = 127.0.0.1
run dir = $DIR/run
admin socket = $DIR/run/\$name.asok
pid file = $DIR/run/\$name.pid
log file = $DIR/\$name.log
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
[mon]
mon data = $DIR/mon.\$id
[osd]
osd data = $DIR/osd.\$id
osd objectstore = memstore
memstore device bytes = 2147483648
osd max object name len = 460
osd max object namespace len = 64
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw dns name = 127.0.0.1
EOF
  mkdir -p "$DIR/run" "$DIR/mon.a" "$DIR/osd.0"
  ceph-authtool --create-keyring "$DIR/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" --keyring "$DIR/mon.keyring"
  ceph-mon -c "$CONF" -i a 9>&-
  local osd_id
  osd_id=$(ceph -c "$CONF" osd create)
  ceph-osd -c "$CONF" -i "$osd_id" --mkfs 2>>"$DIR/osd-mkfs.log"
  ceph-osd -c "$CONF" -i "$osd_id" 9>&-
  radosgw -c "$CONF" -n client.rgw 9>&-
  for _ in $(seq 1 20); do [ -f "$DIR/run/client.rgw.pid" ] && break; sleep 0.5; done
  cat "$DIR"/run/*.pid >"$DIR/pids"
  echo "$rgw_port" >"$DIR/rgw.port"
  # The gateway creates its pools on first use; it answers once the OSD is up.
  for _ in $(seq 1 90); do
    if curl -fs -o /dev/null "http://127.0.0.1:$rgw_port/"; then break; fi
    sleep 1
  done
  curl -fsS -o /dev/null "http://127.0.0.1:$rgw_port/" || { log "radosgw did not answer; see $DIR/*.log"; exit 1; }
  radosgw-admin -c "$CONF" user create --uid=cxs-test --display-name="CXS tests" \
    --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >/dev/null
  # Bucket creation needs a signed request; the SDK in node_modules does it.
  (eval "$(print_env)"; node "$(dirname "$0")/s3-create-bucket.mjs")
  log "radosgw listening on 127.0.0.1:$rgw_port (bucket $BUCKET)"
}

stop_quietly() {
  if [ -f "$DIR/pids" ]; then
    while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$DIR/pids"
    for _ in $(seq 1 20); do
      alive=0
      while read -r pid; do kill -0 "$pid" 2>/dev/null && alive=1; done <"$DIR/pids"
      [ "$alive" = 0 ] && break
      sleep 0.5
    done
    while read -r pid; do kill -9 "$pid" 2>/dev/null || true; done <"$DIR/pids"
  fi
  rm -rf "$DIR"
}

# Test runs share one server: each acquires it with its own pid and releases it at its end. The server an
# acquire started is stopped by the last release, when no other user's process is alive any more (a run
# that was killed never releases: its pid is gone, so it does not keep the server up).
acquire() {
  if ! running; then
    start
    : >"$DIR/owned"
  fi
  mkdir -p "$DIR/users"
  : >"$DIR/users/$1"
}

release() {
  rm -f "$DIR/users/$1"
  for user in "$DIR"/users/*; do
    [ -e "$user" ] || continue
    kill -0 "$(basename "$user")" 2>/dev/null || rm -f "$user"
  done
  if [ -f "$DIR/owned" ] && [ -z "$(ls -A "$DIR/users" 2>/dev/null)" ]; then stop_quietly; fi
}

# One start or stop at a time: test runs begun together (several checkouts, several suites) would otherwise
# each find no server, clear each other's state and start half a cluster twice. The daemons are started
# without the lock's descriptor (`9>&-`): they outlive the script and would hold the lock for ever.
with_lock() {
  exec 9>"$DIR.lock"
  flock 9
  "$@"
}

case "${1:-}" in
  start) with_lock start ;;
  env) running || { log "not running (scripts/s3-server.sh start)"; exit 1; }; print_env ;;
  stop) with_lock stop_quietly ;;
  acquire | release)
    [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "usage: $0 $1 PID" >&2; exit 2; }
    with_lock "$1" "$2"
    ;;
  *) echo "usage: $0 start|env|stop|acquire PID|release PID" >&2; exit 2 ;;
esac
