package devchain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"github.com/ordolabs/ordo/internal/chain"
)

// Registry is the `registry` contract (seed 001): the definitions of the
// tools a leader invokes, each a name, the URL it is served at and the JSON
// Schemas of its input and output. Anyone may register a tool name nobody
// holds; only its registrant may change or remove it.
//
// Transactions (args are JSON objects whose keys must be exactly these;
// unknown fields fail):
//   - register {tool, url, inputSchema, outputSchema}: defines tool (1-64
//     characters of [a-z0-9_.-]) served at url (an http or https URL with a
//     host, at most MaxToolURL bytes); each schema is a JSON object of at
//     most MaxToolSchema bytes (its content is not checked: the leader
//     compiles it). A register by the tool's registrant replaces the
//     definition; by anyone else it fails with ReasonNotOwner. It emits
//     ToolRegistered {tool, url, version}.
//   - deregister {tool}: removes the tool (ReasonNoSuchTool when it is not
//     registered, ReasonNotOwner from anyone but its registrant) and emits
//     ToolDeregistered {tool, version}; the name is then free for anyone.
//
// Every change of a tool (register, re-register, deregister) raises its
// version by one, and the count survives a deregister: versions of a name
// never repeat, so a cache keyed by name can compare them. At most MaxTools
// tools are registered at once (ReasonTooManyTools).
//
// Reads (Call):
//   - tool {tool} → a ToolDefinition; a tool not registered is an error
//     wrapping chain.ErrNotFound.
//   - tools {} → {"tools": [{tool, url, owner, version}, ...]} by name (the
//     schemas through tool).
//
// State: tool/<name> holds the definition, ver/<name> the version count,
// index the sorted list of registered names.
type Registry struct{}

// RegistryContract is the registry contract's name.
const RegistryContract = "registry"

// Registry limits and failure reasons.
const (
	// MaxToolName is the longest tool name, in bytes.
	MaxToolName = 64
	// MaxToolURL is the longest tool URL, in bytes.
	MaxToolURL = 2048
	// MaxToolSchema is the largest input or output schema, in bytes.
	MaxToolSchema = 16 << 10
	// MaxTools is the most tools registered at once.
	MaxTools = 1024

	// ReasonNotOwner fails a register or deregister of a tool by another
	// account than its registrant.
	ReasonNotOwner = "not_owner"
	// ReasonNoSuchTool fails a deregister of a tool not registered.
	ReasonNoSuchTool = "no_such_tool"
	// ReasonTooManyTools fails a register of a new tool when MaxTools are.
	ReasonTooManyTools = "too_many_tools"
)

// ToolDefinition is a registered tool: the answer of the registry's tool read.
type ToolDefinition struct {
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// URL is where the tool is served.
	URL string `json:"url"`
	// InputSchema and OutputSchema are the JSON Schemas (JSON objects) of
	// the tool's input and output.
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	// Owner is the account that registered it.
	Owner chain.Address `json:"owner"`
	// Version counts the changes of the name, this registration included.
	Version uint64 `json:"version"`
}

// ToolSummary is one entry of the registry's tools read.
type ToolSummary struct {
	Tool    string        `json:"tool"`
	URL     string        `json:"url"`
	Owner   chain.Address `json:"owner"`
	Version uint64        `json:"version"`
}

// ToolRegistered is the data of the registry's ToolRegistered event.
type ToolRegistered struct {
	Tool    string `json:"tool"`
	URL     string `json:"url"`
	Version uint64 `json:"version"`
}

// ToolDeregistered is the data of the registry's ToolDeregistered event.
type ToolDeregistered struct {
	Tool    string `json:"tool"`
	Version uint64 `json:"version"`
}

// Name returns "registry".
func (Registry) Name() string { return RegistryContract }

func regToolKey(t string) string { return "tool/" + t }
func regVerKey(t string) string  { return "ver/" + t }

const regIndexKey = "index"

// ValidToolName reports whether s is a valid tool name: 1 to MaxToolName
// characters of [a-z0-9_.-].
func ValidToolName(s string) bool {
	if len(s) == 0 || len(s) > MaxToolName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// toolArg reads and checks the "tool" field; who prefixes the reason.
func toolArg(f map[string]json.RawMessage, who string) (string, error) {
	var t string
	if json.Unmarshal(f["tool"], &t) != nil || !ValidToolName(t) {
		return "", Fail("%s: tool must be 1-%d characters of [a-z0-9_.-]", who, MaxToolName)
	}
	return t, nil
}

// Apply executes register or deregister.
func (Registry) Apply(x *Exec, method string, args json.RawMessage) error {
	switch method {
	case "register":
		return regRegister(x, args)
	case "deregister":
		return regDeregister(x, args)
	}
	return Fail("registry: unknown method %q", method)
}

func regRegister(x *Exec, args json.RawMessage) error {
	f, err := decodeObject(args, "registry: register args", "tool", "url", "inputSchema", "outputSchema")
	if err != nil {
		return err
	}
	d := ToolDefinition{Owner: x.From}
	if d.Tool, err = toolArg(f, "registry"); err != nil {
		return err
	}
	if json.Unmarshal(f["url"], &d.URL) != nil || !validToolURL(d.URL) {
		return Fail("registry: url must be an http or https URL with a host, at most %d bytes", MaxToolURL)
	}
	for _, s := range []struct {
		name string
		dst  *json.RawMessage
	}{{"inputSchema", &d.InputSchema}, {"outputSchema", &d.OutputSchema}} {
		v := bytes.TrimSpace(f[s.name])
		if len(v) == 0 || v[0] != '{' || len(v) > MaxToolSchema {
			return Fail("registry: %s must be a JSON object of at most %d bytes", s.name, MaxToolSchema)
		}
		*s.dst = v
	}
	old, found, err := regLoad(x, d.Tool)
	if err != nil {
		return err
	}
	if found && old.Owner != x.From {
		return Fail(ReasonNotOwner)
	}
	if !found {
		names, err := regIndex(x)
		if err != nil {
			return err
		}
		if len(names) >= MaxTools {
			return Fail(ReasonTooManyTools)
		}
		i, _ := slices.BinarySearch(names, d.Tool)
		if err := regSetIndex(x, slices.Insert(names, i, d.Tool)); err != nil {
			return err
		}
	}
	if d.Version, err = regBump(x, d.Tool); err != nil {
		return err
	}
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("registry: definition of %s: %w", d.Tool, err)
	}
	x.Set(regToolKey(d.Tool), b)
	return x.Emit("ToolRegistered", ToolRegistered{Tool: d.Tool, URL: d.URL, Version: d.Version})
}

func regDeregister(x *Exec, args json.RawMessage) error {
	f, err := decodeObject(args, "registry: deregister args", "tool")
	if err != nil {
		return err
	}
	t, err := toolArg(f, "registry")
	if err != nil {
		return err
	}
	old, found, err := regLoad(x, t)
	if err != nil {
		return err
	}
	if !found {
		return Fail(ReasonNoSuchTool)
	}
	if old.Owner != x.From {
		return Fail(ReasonNotOwner)
	}
	names, err := regIndex(x)
	if err != nil {
		return err
	}
	if i, ok := slices.BinarySearch(names, t); ok {
		if err := regSetIndex(x, slices.Delete(names, i, i+1)); err != nil {
			return err
		}
	}
	v, err := regBump(x, t)
	if err != nil {
		return err
	}
	x.Set(regToolKey(t), nil)
	return x.Emit("ToolDeregistered", ToolDeregistered{Tool: t, Version: v})
}

// validToolURL: an absolute http or https URL with a host, of at most
// MaxToolURL bytes. url.Parse is a pure function of its input: the same
// URL gives the same answer in a replay.
func validToolURL(s string) bool {
	if len(s) == 0 || len(s) > MaxToolURL {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Opaque == ""
}

// regBump raises a tool's version count and returns the new version.
func regBump(x *Exec, t string) (uint64, error) {
	v := uint64(0)
	if raw, ok := x.Get(regVerKey(t)); ok {
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("registry: corrupt version of %s: %w", t, err)
		}
		v = n
	}
	v++
	x.Set(regVerKey(t), []byte(strconv.FormatUint(v, 10)))
	return v, nil
}

// regLoad reads a tool's definition; found is false when it is not registered.
func regLoad(r StateReader, t string) (d ToolDefinition, found bool, err error) {
	raw, ok := r.Get(regToolKey(t))
	if !ok {
		return d, false, nil
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return d, false, fmt.Errorf("registry: corrupt definition of %s: %w", t, err)
	}
	return d, true, nil
}

// regIndex reads the sorted list of registered names.
func regIndex(r StateReader) ([]string, error) {
	var names []string
	raw, ok := r.Get(regIndexKey)
	if !ok {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, fmt.Errorf("registry: corrupt index: %w", err)
	}
	return names, nil
}

func regSetIndex(x *Exec, names []string) error {
	if len(names) == 0 {
		x.Set(regIndexKey, nil)
		return nil
	}
	b, err := json.Marshal(names)
	if err != nil {
		return fmt.Errorf("registry: index: %w", err)
	}
	x.Set(regIndexKey, b)
	return nil
}

// Call answers tool {tool} and tools {}.
func (Registry) Call(r StateReader, method string, args json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "tool":
		f, err := decodeObject(args, "registry: tool args", "tool")
		if err != nil {
			return nil, err
		}
		t, err := toolArg(f, "registry")
		if err != nil {
			return nil, err
		}
		raw, ok := r.Get(regToolKey(t))
		if !ok {
			return nil, fmt.Errorf("%w: registry: no tool %q", chain.ErrNotFound, t)
		}
		return raw, nil
	case "tools":
		if err := decodeNoArgs(args, "registry: tools args"); err != nil {
			return nil, err
		}
		names, err := regIndex(r)
		if err != nil {
			return nil, err
		}
		out := struct {
			Tools []ToolSummary `json:"tools"`
		}{Tools: make([]ToolSummary, 0, len(names))}
		for _, n := range names {
			d, found, err := regLoad(r, n)
			if err != nil {
				return nil, err
			}
			if !found {
				return nil, fmt.Errorf("registry: index names %s, which has no definition", n)
			}
			out.Tools = append(out.Tools, ToolSummary{Tool: d.Tool, URL: d.URL, Owner: d.Owner, Version: d.Version})
		}
		return json.Marshal(out)
	}
	return nil, errNoMethod
}

// decodeNoArgs accepts the args of a method that takes none: nothing, null
// or an empty object.
func decodeNoArgs(args json.RawMessage, what string) error {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		return nil
	}
	_, err := decodeObject(args, what)
	return err
}
