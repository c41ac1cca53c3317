package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

var updateVectors = flag.Bool("update-vectors", false, "rewrite testdata/build_vectors.json")

// buildVector is one Build of this worker: its inputs and the unsigned
// transaction's hash and args, or the error. The TypeScript voting worker
// (sdk/typescript/examples/voting) builds the same cases and must get the
// same hashes.
type buildVector struct {
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data,omitempty"` // absent: no data
	Sender    Sender          `json:"sender"`
	UID       string          `json:"uid"`
	Hash      chain.Hash      `json:"hash,omitempty"`
	Canonical string          `json:"canonical,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// The committed vectors are what Build makes now (go test
// ./examples/worker -run TestBuildVectors -update-vectors rewrites them).
func TestBuildVectors(t *testing.T) {
	s := Sender{AccountID: string(chain.KeyAddress(chain.KeyFromSeed("w"))), Queue: "claim-1", Retries: 2, Nonce: 7, Fee: 1210}
	datas := []string{``, `{}`, `null`, `{"title":"t","n":1.50}`, `{"zkapp":"other","v":[1,2]}`, `{"zkapp":null}`, `[1,2]`, `"s"`, `{"zkapp":5}`, `{"big":123456789012345678901234567890,"s":"<é>"}`}
	var out []buildVector
	for _, typ := range append(append([]string{}, sortedTypes()...), "MINT_NFT") {
		for _, data := range datas {
			v := buildVector{Type: typ, Sender: s, UID: "tx_1"}
			if data != "" {
				v.Data = json.RawMessage(data)
			}
			tx, err := Build(TxnData{UID: v.UID, Type: typ, Data: v.Data}, s)
			if err != nil {
				v.Error = err.Error()
			} else {
				v.Hash, v.Canonical = tx.Hash(), string(chain.CanonicalArgs(tx.Args))
			}
			out = append(out, v)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	const file = "testdata/build_vectors.json"
	if *updateVectors {
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (rewrite it with -update-vectors)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatalf("%s is stale: go test ./examples/worker -run TestBuildVectors -update-vectors rewrites it", file)
	}
}

func sortedTypes() []string {
	return []string{"COMMIT_ALL_VOTING_BATCHES", "CREATE_CLAIM_VOTING_ACCOUNT", "CREATE_VOTING_BATCHES_ACCOUNT", "RECEIVE_VOTES_BATCH", "SEND_CLAIM_VOTE"}
}
