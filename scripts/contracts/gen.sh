#!/usr/bin/env bash
# Regenerates ordo's EVM contract artifacts and Go bindings from contracts/*.sol:
#
#   scripts/contracts/gen.sh
#
# 1. npm ci here installs solc-js 0.8.37, pinned by package-lock.json (it bundles
#    the compiler: nothing else is downloaded);
# 2. compile.js compiles every contracts/**/*.sol through solc's standard-JSON
#    interface (evmVersion cancun, optimizer on) and writes
#    internal/chain/evm/contracts/<Name>.json for each deployable contract;
# 3. abigen v2 (go-ethereum v1.17.10, the version go.mod pins) writes the Go
#    bindings internal/chain/evm/contracts/<name>.go.
# Commit what it writes: CI and users build from the committed files and need no
# npm; TestArtifactsMatchSources fails when they fall behind their sources.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/internal/chain/evm/contracts
ABIGEN=github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cd "$ROOT/scripts/contracts"
npm ci --no-audit --no-fund --loglevel=error

# Everything is written to $TMP/out first: a failed step leaves the committed
# files as they were.
mkdir "$TMP/out"
names=$(node compile.js "$ROOT" "$TMP/out" "$TMP")

cd "$ROOT"
for name in $names; do
	lower=$(echo "$name" | tr '[:upper:]' '[:lower:]')
	go run "$ABIGEN" --v2 --pkg contracts --type "$name" \
		--abi "$TMP/$name.abi" --bin "$TMP/$name.bin" --out "$TMP/out/${lower}_abigen.go"
done

# Artifacts of contracts that no longer exist must not linger.
rm -f "$OUT"/*.json "$OUT"/*_abigen.go
for f in "$TMP"/out/*; do
	install -m 644 "$f" "$OUT/"
	echo "wrote ${OUT#"$ROOT"/}/$(basename "$f")"
done
