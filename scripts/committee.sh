#!/usr/bin/env bash
# A devchain and a committee of ordo nodes on this machine (issue 11), as the
# docs/distseq.md ("By hand") does by hand: ordo devchain, ordo committee
# init, ordo committee deploy, one ordo serve --config per node, all in the
# background, their logs and pids under $ORDO_COMMITTEE_DIR.
#
#   scripts/committee.sh          build ordo, start everything, print how to use it
#   scripts/committee.sh status   which processes run, and the coordinator each node sees
#   scripts/committee.sh kill I   kill node I with SIGKILL (a crash)
#   scripts/committee.sh node I   start node I again (after a kill)
#   scripts/committee.sh stop     stop them (SIGTERM, SIGKILL after 10s)
#
# Settings (environment): ORDO_COMMITTEE_DIR (default ./.committee), NODES (4),
# CHAIN_PORT (7545), API_BASE_PORT (7070: node i's API on API_BASE_PORT+i-1),
# GRPC_BASE_PORT (7171), BLOCK_TIME (1s), RANGE_SIZE (blocks per coordinator
# range, 20), GROUP (g), COINS (100), THRESHOLD (endorsements a transaction
# needs, NODES-1: the group goes on while one member is down). A start wipes the previous run's chain and
# committee in that directory.
# Replicated queues (issue 12): REPLICATION=1 passes --replication to ordo committee init, and
# ACK_AFTER, UNHEALTHY_AFTER, MONITOR_EVERY and MAPPING_EVERY (when set) its --ack-after,
# --unhealthy-after, --monitor-every and --mapping-every; MAPPING_EVERY defaults to 5s here (the
# node's own default is 10m), and the start then waits until every node has read the chain's nodes
# registry with all NODES nodes in it (a queue's replica set names the nodes its node knows).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${ORDO_COMMITTEE_DIR:-$ROOT/.committee}
NODES=${NODES:-4}
CHAIN_PORT=${CHAIN_PORT:-7545}
API_BASE_PORT=${API_BASE_PORT:-7070}
GRPC_BASE_PORT=${GRPC_BASE_PORT:-7171}
BLOCK_TIME=${BLOCK_TIME:-1s}
RANGE_SIZE=${RANGE_SIZE:-20}
GROUP=${GROUP:-g}
COINS=${COINS:-100}
THRESHOLD=${THRESHOLD:-$((NODES > 1 ? NODES - 1 : 1))}
REPLICATION=${REPLICATION:-}
ACK_AFTER=${ACK_AFTER:-}
UNHEALTHY_AFTER=${UNHEALTHY_AFTER:-}
MONITOR_EVERY=${MONITOR_EVERY:-}
MAPPING_EVERY=${MAPPING_EVERY:-5s}
BIN=$DIR/ordo
CHAIN=http://127.0.0.1:$CHAIN_PORT

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# wait_http URL WHAT PIDFILE: poll URL until it answers 2xx (30s).
wait_http() {
	for _ in $(seq 300); do
		if curl -fsS -o /dev/null "$1" 2>/dev/null; then return 0; fi
		if ! alive "$3"; then echo "$2 exited; its log:" >&2; tail -n 20 "$DIR/logs/$(basename "$3").log" >&2; exit 1; fi
		sleep 0.1
	done
	echo "$2 not ready after 30s; see $DIR/logs" >&2
	exit 1
}

# wait_gone PID: wait up to 10s for PID to be gone (reaped, not only signalled).
wait_gone() {
	for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	return 1
}

stop() {
	local any=0
	for pf in "$DIR"/pids/node* "$DIR"/pids/chain; do
		[ -f "$pf" ] || continue
		any=1
		local pid
		pid=$(cat "$pf")
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null || true
			wait_gone "$pid" || kill -KILL "$pid" 2>/dev/null || true
			echo "stopped $(basename "$pf") (pid $pid)"
		fi
		rm -f "$pf"
	done
	[ "$any" = 1 ] || echo "nothing running under $DIR"
}

status() {
	for pf in "$DIR"/pids/chain "$DIR"/pids/node*; do
		[ -f "$pf" ] || continue
		if alive "$pf"; then echo "$(basename "$pf"): running (pid $(cat "$pf"))"; else echo "$(basename "$pf"): not running"; fi
	done
	for i in $(seq "$NODES"); do
		local tok port
		tok=$(cat "$DIR/committee/node$i/token" 2>/dev/null) || continue
		port=$((API_BASE_PORT + i - 1))
		printf 'node%d sees coordinators: ' "$i"
		curl -fsS -H "Authorization: Bearer $tok" "http://127.0.0.1:$port/v1/peers" 2>/dev/null |
			sed -n 's/.*"coordinators":\({[^}]*}\).*/\1/p' || echo "(no answer)"
	done
}

# replication_flags: ordo committee init's replication flags from the settings.
replication_flags() {
	[ -n "$REPLICATION" ] && [ "$REPLICATION" != 0 ] || return 0
	printf '%s\n' --replication
	[ -z "$ACK_AFTER" ] || printf '%s\n' --ack-after "$ACK_AFTER"
	[ -z "$UNHEALTHY_AFTER" ] || printf '%s\n' --unhealthy-after "$UNHEALTHY_AFTER"
	[ -z "$MONITOR_EVERY" ] || printf '%s\n' --monitor-every "$MONITOR_EVERY"
	[ -z "$MAPPING_EVERY" ] || printf '%s\n' --mapping-every "$MAPPING_EVERY"
}

# mapping_read_at I: node I's last read of the nodes registry (GET /v1/smm).
mapping_read_at() {
	curl -fsS -H "Authorization: Bearer $(cat "$DIR/committee/node$1/token")" "http://127.0.0.1:$((API_BASE_PORT + $1 - 1))/v1/smm" 2>/dev/null |
		sed -n 's/.*"mappingReadAt":"\([^"]*\)".*/\1/p'
}

# wait_registry: every node registered on chain, then every node's registry read again after that (60s).
wait_registry() {
	local n=0
	for _ in $(seq 600); do
		n=$(curl -fsS -H 'Content-Type: application/json' "$CHAIN/v1/call" -d '{"contract":"nodes","method":"nodes","args":{}}' 2>/dev/null |
			grep -o '"id":"n[0-9a-f]*"' | sort -u | wc -l) || n=0
		[ "$n" -ge "$NODES" ] && break
		sleep 0.1
	done
	[ "$n" -ge "$NODES" ] || { echo "only $n of $NODES nodes in the chain's nodes registry after 60s; see $DIR/logs" >&2; exit 1; }
	local i before
	for i in $(seq "$NODES"); do
		before=$(mapping_read_at "$i") || before=
		for _ in $(seq 600); do
			[ "$(mapping_read_at "$i" || true)" != "$before" ] && continue 2
			sleep 0.1
		done
		echo "node$i did not read the nodes registry again within 60s" >&2
		exit 1
	done
	echo "every node knows the $NODES registered nodes (replication: a new queue's set can name them all)"
}

kill_node() {
	alive "$DIR/pids/node$1" || { echo "node$1 is not running" >&2; exit 1; }
	local pid
	pid=$(cat "$DIR/pids/node$1")
	kill -KILL "$pid"
	wait_gone "$pid" || { echo "node$1 (pid $pid) still there 10s after SIGKILL" >&2; exit 1; }
	echo "killed node$1 (SIGKILL)"
}

# launch_node I: start node I's ordo serve in the background, its log appended.
launch_node() {
	"$BIN" serve --config "$DIR/committee/node$1/node.yaml" >>"$DIR/logs/node$1.log" 2>&1 &
	echo $! >"$DIR/pids/node$1"
}

start_node() {
	if alive "$DIR/pids/node$1"; then echo "node$1 is running" >&2; exit 1; fi
	launch_node "$1"
	wait_http "http://127.0.0.1:$((API_BASE_PORT + $1 - 1))/readyz" "node$1" "$DIR/pids/node$1"
	echo "node$1 ready again (pid $(cat "$DIR/pids/node$1"))"
}

start() {
	for pf in "$DIR"/pids/*; do
		if alive "$pf"; then echo "already running ($pf); run $0 stop first" >&2; exit 1; fi
	done
	command -v curl >/dev/null || { echo "curl is needed" >&2; exit 1; }
	mkdir -p "$DIR/logs" "$DIR/pids"
	rm -rf "$DIR/chain" "$DIR/committee" "$DIR"/logs/* "$DIR"/pids/*
	echo "building ordo into $BIN"
	(cd "$ROOT" && go build -o "$BIN" ./cmd/ordo)

	"$BIN" devchain --listen "127.0.0.1:$CHAIN_PORT" --data "$DIR/chain" --block-time "$BLOCK_TIME" >"$DIR/logs/chain.log" 2>&1 &
	echo $! >"$DIR/pids/chain"
	wait_http "$CHAIN/v1/head" devchain "$DIR/pids/chain"
	echo "devchain on $CHAIN (pid $(cat "$DIR/pids/chain"))"

	"$BIN" committee init --nodes "$NODES" --out "$DIR/committee" --chain "$CHAIN" \
		--base-port "$GRPC_BASE_PORT" --api-base-port "$API_BASE_PORT" --range-size "$RANGE_SIZE" \
		$(replication_flags) >"$DIR/logs/init.log"
	"$BIN" committee deploy --out "$DIR/committee" --group "$GROUP" --chain "$CHAIN" --coins "$COINS" --threshold "$THRESHOLD"

	for i in $(seq "$NODES"); do launch_node "$i"; done
	for i in $(seq "$NODES"); do
		wait_http "http://127.0.0.1:$((API_BASE_PORT + i - 1))/readyz" "node$i" "$DIR/pids/node$i"
		echo "node$i: API http://127.0.0.1:$((API_BASE_PORT + i - 1)), gRPC 127.0.0.1:$((GRPC_BASE_PORT + i - 1)), pid $(cat "$DIR/pids/node$i"), log $DIR/logs/node$i.log"
	done
	if [ -n "$(replication_flags)" ]; then wait_registry; fi

	cat <<EOF

A committee of $NODES nodes runs the privacy group "$GROUP" ($COINS coins; the coordinator moves every $RANGE_SIZE blocks).
Send a private transaction to any node (node 2 here) through its ptx_ JSON-RPC API:

  curl -sS -H "Authorization: Bearer \$(cat $DIR/committee/node2/token)" -H 'Content-Type: application/json' \\
    http://127.0.0.1:$((API_BASE_PORT + 1))/rpc \\
    -d '{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":[{"type":"private","domain":"token","from":"admin","to":"$GROUP","data":{"to":"alice","amount":10},"idempotencyKey":"k1"}]}'

Its receipt (put the id it answered in place of TX):

  curl -sS -H "Authorization: Bearer \$(cat $DIR/committee/node2/token)" -H 'Content-Type: application/json' \\
    http://127.0.0.1:$((API_BASE_PORT + 1))/rpc -d '{"jsonrpc":"2.0","id":2,"method":"ptx_getTransactionReceipt","params":["TX"]}'

Watch the coordinator (and each peer's connection) from any node:

  watch -n1 "curl -sS -H 'Authorization: Bearer \$(cat $DIR/committee/node1/token)' http://127.0.0.1:$API_BASE_PORT/v1/peers"
  $0 status

Kill a node (the coordinator) with SIGKILL and start it again: $0 kill I; $0 node I
Stop everything: $0 stop
EOF
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
status) status ;;
kill) kill_node "${2:?node number}" ;;
node) start_node "${2:?node number}" ;;
*)
	echo "usage: $0 [start|status|kill I|node I|stop]" >&2
	exit 2
	;;
esac
