package sequencer

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestReasonClasses(t *testing.T) {
	for _, tt := range []struct{ note, recErr, retry, failure string }{
		{"dispatch error: send: transaction rejected by the chain", "", ReasonDispatchError, ReasonDispatchError},
		{"not included within 5 blocks", "", ReasonNotIncluded, ReasonNotIncluded},
		{"failed at inclusion: reverted", "", ReasonFailedInclusion, ReasonFailedInclusion},
		{"dropped by the chain", "", ReasonDropped, ReasonDropped},
		{"recovered: attempt not on chain", "", ReasonRecovered, ReasonRecovered},
		{"failed at inclusion: precondition (after the last retry)", "dispatch error: x", ReasonFailedInclusion, ReasonFailedInclusion},
		{"failed after 3 retries", "not included within 5 blocks", ReasonOther, ReasonNotIncluded},
		{"failed after 1 retries", "dispatch error: nonce too low", ReasonOther, ReasonDispatchError},
		{"failed: the dispatch can never succeed", "not retried: invalid claim", ReasonPermanent, ReasonPermanent},
		{"ambiguous: attempt 2 (nonce 7) went to a remote worker", "ambiguous: attempt 2", ReasonAmbiguous, ReasonAmbiguous},
		{"something new", "", ReasonOther, ReasonOther},
	} {
		if got := reasonClass(tt.note); got != tt.retry {
			t.Errorf("reasonClass(%q) = %s, want %s", tt.note, got, tt.retry)
		}
		if got := failureClass(tt.note, tt.recErr); got != tt.failure {
			t.Errorf("failureClass(%q, %q) = %s, want %s", tt.note, tt.recErr, got, tt.failure)
		}
	}
}

// Every RETRY and FAILED note the core writes in the scenario scripts has a
// class: a new note in the core shows here, not as "other" in production.
func TestScenarioNotesHaveClasses(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("scenarios: %v %d", err, len(files))
	}
	move := regexp.MustCompile(`^\s*[A-Z_]+ -> (RETRY|FAILED) \([^)]*\) (.*)$`)
	rec := regexp.MustCompile(`^\s*\S+ FAILED .*error="([^"]*)"`)
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lastErr := ""
		for line := range strings.Lines(string(b)) {
			line = strings.TrimRight(line, "\n")
			if m := rec.FindStringSubmatch(line); m != nil {
				lastErr = m[1]
			}
			m := move.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			seen++
			switch note := strings.TrimSpace(m[2]); m[1] {
			case "RETRY":
				if reasonClass(note) == ReasonOther {
					t.Errorf("%s: retry note %q has no class", f, note)
				}
			case "FAILED":
				if failureClass(note, lastErr) == ReasonOther {
					t.Errorf("%s: failure note %q (error %q) has no class", f, note, lastErr)
				}
			}
		}
	}
	if seen < 10 {
		t.Fatalf("only %d RETRY/FAILED moves found in the scenarios: has their format changed?", seen)
	}
}
