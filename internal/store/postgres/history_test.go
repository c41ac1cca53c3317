package postgres

import (
	"reflect"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// TestHistoryText: a batch's entries are grouped by uid in the order of
// each uid's first entry, each uid's lines in batch order, and decode back
// to the entries (times as the clock gave them, UTC).
func TestHistoryText(t *testing.T) {
	b := &store.Batch{History: []store.HistoryEntry{
		{UID: "a", From: store.Waiting, To: store.Revision, Binding: store.Inclusion, Note: "line\nbreak \"quoted\""},
		{UID: "b", At: time.Unix(0, 7), From: store.Waiting, To: store.Failed},
		{UID: "a", From: store.Revision, To: store.Done},
	}}
	var clock int64
	at := func(t time.Time) int64 {
		if t.IsZero() {
			clock += 10
			return clock
		}
		return t.UnixNano()
	}
	uids, text, err := historyText(b, at)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(uids, []string{"a", "b"}) {
		t.Fatalf("uids %v", uids)
	}
	for _, tc := range []struct {
		uid  string
		want []store.HistoryEntry
	}{
		{"a", []store.HistoryEntry{
			{UID: "a", At: time.Unix(0, 10).UTC(), From: store.Waiting, To: store.Revision, Binding: store.Inclusion, Note: "line\nbreak \"quoted\""},
			{UID: "a", At: time.Unix(0, 20).UTC(), From: store.Revision, To: store.Done},
		}},
		{"b", []store.HistoryEntry{{UID: "b", At: time.Unix(0, 7).UTC(), From: store.Waiting, To: store.Failed}}},
	} {
		got, err := decodeHistory(tc.uid, text[tc.uid])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", tc.uid, got, tc.want)
		}
	}
}

// TestDecodeHistoryRefuses: a column that is not whole lines of JSON
// objects is an error naming the line, not a partial history.
func TestDecodeHistoryRefuses(t *testing.T) {
	for _, text := range []string{
		`{"at":1,"from":"","to":"DONE"}`, // no newline
		"{\"at\":1}\nnot json\n",
		"\n",
		"{\"at\":\"x\"}\n",
	} {
		if hs, err := decodeHistory("u", []byte(text)); err == nil {
			t.Fatalf("%q: decoded %+v", text, hs)
		}
	}
	if hs, err := decodeHistory("u", nil); err != nil || len(hs) != 0 {
		t.Fatalf("empty: %+v %v", hs, err)
	}
}

// FuzzDecodeHistory: any column either fails to decode or decodes to
// entries that, written again, decode to the same entries.
func FuzzDecodeHistory(f *testing.F) {
	f.Add([]byte("{\"at\":200,\"from\":\"WAITING\",\"to\":\"REVISION\",\"binding\":\"INCLUSION\"}\n"))
	f.Add([]byte("{\"at\": 1, \"to\": \"DONE\", \"from\": \"REVISION\", \"note\": \"\", \"binding\": \"\"}\n{\"at\":2}\n"))
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		hs, err := decodeHistory("u", text)
		if err != nil {
			return
		}
		b := &store.Batch{History: hs}
		_, again, err := historyText(b, func(t time.Time) int64 { return t.UnixNano() })
		if err != nil {
			t.Fatal(err)
		}
		hs2, err := decodeHistory("u", again["u"])
		if err != nil {
			t.Fatalf("re-encoded history does not decode: %v", err)
		}
		if len(hs) == 0 && len(hs2) == 0 {
			return
		}
		if !reflect.DeepEqual(hs, hs2) {
			t.Fatalf("round trip:\n %+v\n %+v", hs, hs2)
		}
	})
}
