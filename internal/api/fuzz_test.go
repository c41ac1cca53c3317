package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// FuzzIntake posts arbitrary bodies to POST /v1/transactions, one intent or
// an array: the answer is never a 5xx, always JSON, and a 4xx creates no
// record; an array's 200 has one result per item, none a 5xx, and creates
// as many records as it says were created.
func FuzzIntake(f *testing.F) {
	for _, s := range []string{
		`{"queue":"q","type":"CREATE_CLAIM_VOTING_ACCOUNT","data":{"a":1},"idempotencyKey":"k"}`,
		`{"queue":"q","type":"SEND_CLAIM_VOTE","data":[1,2,3]}`,
		`{"queue":"q","type":"NOPE"}`,
		`{"queue":"","type":"SEND_CLAIM_VOTE"}`,
		`{"queue":"q","type":"SEND_CLAIM_VOTE","extra":true}`,
		`{"queue":"q","type":"SEND_CLAIM_VOTE","data":"\u0000\ud800"}`,
		`{"queue":"q\u0007","type":"SEND_CLAIM_VOTE"}`,
		`{"queue":"q","Queue":"r","type":"SEND_CLAIM_VOTE"}`,
		`{"queue":"q","type":"SEND_CLAIM_VOTE"}{}`,
		`{"queue":"q","type":"SEND_CLAIM_VOTE","data":1e999}`,
		`[]`, `null`, `{`, ``, "\xff", `{"data":{"data":{"data":[[[[[]]]]]}}}`,
		`{"queue":"q\ud800","type":"SEND_CLAIM_VOTE"}`,
		`{"queue":"q\ud83d\ude00","type":"SEND_CLAIM_VOTE","idempotencyKey":"k\udc00"}`,
		`{"queue":"\u202eq","type":"SEND_CLAIM_VOTE"}`,
		`{"queue":" \u200b","type":"SEND_CLAIM_VOTE"}`,
		`{"queue":"q","type":"SEND_CLAIM_VOTE","data":{"a":1,"a":2}}`,
		`{"queue":"q","type":"SEND_CLAIM_VOTE","data":{"b":[1,{"c":"\ud800"}]},"idempotencyKey":"k"}`,
		`{"queue":"q","type":"SEND_CLAIM_VOTE","data":{"b":1,"a":[1.0,2]},"idempotencyKey":"k"}`,
		`{"queue":"q","type":"` + strings.Repeat("T", 300) + `"}`,
		`{"queue":"q","type":"SEND_CLAIM_VOTE","data":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
		`[{"queue":"q","type":"SEND_CLAIM_VOTE","idempotencyKey":"a"},{"queue":"q","type":"SEND_CLAIM_VOTE","idempotencyKey":"a"}]`,
		`[{"queue":"q","type":"SEND_CLAIM_VOTE","data":{"a":1},"idempotencyKey":"k"},{"queue":"r","type":"NOPE"},7,null,[]]`,
		`[{"queue":"q","type":"SEND_CLAIM_VOTE","data":{"zkapp":1}},{"queue":"q\u0007","type":"SEND_CLAIM_VOTE"},{"queue":"q","type":"CREATE_CLAIM_VOTING_ACCOUNT"}]`,
		` [ ] `, `[`, `[{}]`, `[{"queue":"q","type":"SEND_CLAIM_VOTE"}] {}`, `[1e999]`, `"q"`, `12`,
	} {
		f.Add([]byte(s))
	}
	// Commits need not survive a power cut here: fsync at checkpoints only,
	// so that the fuzzer spends its time in the handler.
	e := newEnv(f, envOptions{Store: sqlite.Options{Synchronous: sqlite.SyncNormal}})
	var seen int64 // the highest Seq observed
	f.Fuzz(func(t *testing.T, body []byte) {
		r := e.serve(http.MethodPost, "/v1/transactions", body)
		if r.status >= 500 {
			t.Fatalf("status %d for %q: %s", r.status, body, r.body)
		}
		if !isJSON(r.body) || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("status %d for %q: not JSON: %q", r.status, body, r.body)
		}
		news, err := e.store.List(context.Background(), store.Filter{After: seen, Limit: 1000})
		if err != nil {
			t.Fatalf("store.List: %v", err)
		}
		if r.status >= 400 {
			if r.errCode() == "" {
				t.Fatalf("status %d for %q without an error code: %s", r.status, body, r.body)
			}
			// An error quotes at most a short prefix of any input.
			if len(r.body) > 1024 {
				t.Fatalf("status %d for %q with an error of %d bytes: %s", r.status, body, len(r.body), r.body)
			}
			if len(news) > 0 {
				t.Fatalf("status %d for %q created %d records", r.status, body, len(news))
			}
		}
		if r.status == http.StatusCreated && len(news) != 1 {
			t.Fatalf("201 for %q with %d new records", body, len(news))
		}
		if r.status == http.StatusOK && bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("[")) {
			var res []api.BatchResult
			if err := json.Unmarshal(r.body, &res); err != nil || len(res) == 0 {
				t.Fatalf("200 for the array %q: %v %s", body, err, r.body)
			}
			created := 0
			for i, it := range res {
				if it.Status >= 500 || (it.Status >= 400) != (it.Error != nil && it.Error.Code != "") || it.Created != (it.Status == http.StatusCreated) {
					t.Fatalf("item %d of %q: %+v", i, body, it)
				}
				if it.Created {
					created++
				}
			}
			if created != len(news) {
				t.Fatalf("200 for %q: %d created, %d new records", body, created, len(news))
			}
		} else if r.status == http.StatusOK && len(news) != 0 {
			t.Fatalf("200 for %q with %d new records", body, len(news))
		}
		if len(news) > 0 {
			seen = news[len(news)-1].Seq
		}
	})
}
