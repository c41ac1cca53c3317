package main

import "testing"

func TestParseBurndown(t *testing.T) {
	for _, tc := range []struct {
		name                string
		out                 string
		insert, work, whole float64
		wantErr             bool
	}{
		{
			name:   "one line",
			out:    "burndown sqlite: 1000 intents over 10 queues: insert 51234 intents/s (19ms), work 20000 intents/s (50ms), whole 14388.5 intents/s, failed 0\n",
			insert: 51234, work: 20000, whole: 14388.5,
		},
		{
			name:   "progress before, thousands separators",
			out:    "inserting...\nburndown: insert 1,000 intents/s, work 2,000.5 intents/s, whole 666 intents/s\n",
			insert: 1000, work: 2000.5, whole: 666,
		},
		{
			name:    "a phase missing",
			out:     "burndown: insert 1000 intents/s, whole 666 intents/s\n",
			wantErr: true,
		},
		{
			name:    "failed intents",
			out:     "burndown: insert 1000 intents/s, work 2000 intents/s, whole 666 intents/s, failed 3, durability x\n",
			wantErr: true,
		},
		{
			name:   "with its cost",
			out:    "burndown: store=sqlite N=20000: insert 24472 intents/s (817ms), work 2517 intents/s (7.945s, 7942 blocks), whole 2282 intents/s, failed 0, durability synchronous=FULL, peak RSS 153.2 MiB; cost per intent: node CPU 197 µs, database CPU n/a, 0.021 commits, 12.5 rows (batches), 14399 B written\n",
			insert: 24472, work: 2517, whole: 2282,
		},
		{name: "empty", out: "", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseBurndown(tc.out)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error, figures %+v", f)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.insert != tc.insert || f.work != tc.work || f.whole != tc.whole {
				t.Fatalf("insert %v work %v whole %v, want %v %v %v", f.insert, f.work, f.whole, tc.insert, tc.work, tc.whole)
			}
		})
	}
}
