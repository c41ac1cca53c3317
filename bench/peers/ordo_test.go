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
