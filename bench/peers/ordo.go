package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// ordoModule is the first line of the repository's go.mod.
const ordoModule = "module github.com/ordolabs/ordo"

// repoRoot walks up from the working directory to ordo's go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if strings.TrimSpace(first) == ordoModule {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("ordo's repository (go.mod of github.com/ordolabs/ordo) not found above the working directory: run from the repository or pass --ordo")
		}
		dir = parent
	}
}

// buildOrdo builds cmd/ordo into dir and returns the binary's path.
func buildOrdo(ctx context.Context, dir string) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "ordo")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/ordo")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/ordo in %s: %w\n%s", root, err, out)
	}
	return bin, nil
}

// ordoBurndown runs `ordo bench burndown` on store (url: the database for
// postgres) and parses its line.
func ordoBurndown(ctx context.Context, bin string, o options, store, url string) (figures, error) {
	dir, err := os.MkdirTemp("", "ordo-peers-ordo-")
	if err != nil {
		return figures{}, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	args := []string{"bench", "burndown", "--store", store,
		"--intents", strconv.Itoa(o.jobs), "--queues", strconv.Itoa(o.queues)}
	if url != "" {
		args = append(args, "--postgres", url)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return figures{}, fmt.Errorf("%s %s: %w\n%s%s", bin, strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return parseBurndown(stdout.String())
}

// burndownFigure finds a phase's figure in the burndown's line.
var burndownFigure = regexp.MustCompile(`\b(insert|work|whole)\b[^0-9]{0,20}?([0-9][0-9,]*(?:\.[0-9]+)?) intents/s`)

// burndownFailed is the count of intents that did not end DONE.
var burndownFailed = regexp.MustCompile(`\bfailed ([0-9]+)\b`)

// parseBurndown takes the insert, work and whole intents/s from the last
// line of `ordo bench burndown` holding all three.
func parseBurndown(out string) (figures, error) {
	var last figures
	found := false
	s := bufio.NewScanner(strings.NewReader(out))
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		f := figures{detail: line}
		seen := 0
		for _, m := range burndownFigure.FindAllStringSubmatch(line, -1) {
			v, err := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
			if err != nil {
				continue
			}
			switch m[1] {
			case "insert":
				f.insert = v
			case "work":
				f.work = v
			case "whole":
				f.whole = v
			}
			seen |= map[string]int{"insert": 1, "work": 2, "whole": 4}[m[1]]
		}
		if seen == 7 {
			last, found = f, true
			if m := burndownFailed.FindStringSubmatch(line); m != nil && m[1] != "0" {
				return figures{}, fmt.Errorf("ordo: %s intents failed: %s", m[1], line)
			}
		}
	}
	if !found {
		return figures{}, fmt.Errorf("no line with insert, work and whole intents/s in ordo's output:\n%s", out)
	}
	return last, nil
}
