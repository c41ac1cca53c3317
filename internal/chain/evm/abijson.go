package evm

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/ordolabs/ordo/internal/chain"
)

// This file converts between ordo's JSON args and ABI values: an object
// keyed by parameter names (a leading "_" may be left out), integers as
// decimal strings or JSON integers, addresses and bytes as 0x hex. Values
// come back out in one form: integers as decimal strings, addresses in
// lowercase, bytes as 0x hex, tuples as objects by field name.

// argName is the JSON key of an ABI parameter: its name without a leading
// "_", or its position when it has no name.
func argName(name string, i int) string {
	if n := strings.TrimPrefix(name, "_"); n != "" {
		return n
	}
	return strconv.Itoa(i)
}

// packArgs encodes the JSON object args (empty or null for none) as the
// ABI encoding of params. Errors wrap chain.ErrInvalidTx.
func packArgs(params abi.Arguments, args json.RawMessage) ([]byte, error) {
	var obj map[string]json.RawMessage
	if t := bytes.TrimSpace(args); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := json.Unmarshal(t, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("%w: args must be a JSON object keyed by parameter name", chain.ErrInvalidTx)
		}
	}
	vals := make([]any, len(params))
	used := 0
	for i, p := range params {
		key := argName(p.Name, i)
		raw, ok := obj[key]
		if !ok && p.Name != key {
			raw, ok = obj[p.Name] // the exact ABI name, "_" and all
		}
		if !ok {
			return nil, fmt.Errorf("%w: args: %s (%s) is missing", chain.ErrInvalidTx, key, p.Type.String())
		}
		used++
		v, err := goValue(p.Type, raw, key)
		if err != nil {
			return nil, err
		}
		vals[i] = v.Interface()
	}
	if used != len(obj) {
		for k := range obj {
			if !hasParam(params, k) {
				return nil, fmt.Errorf("%w: args: %s is not a parameter", chain.ErrInvalidTx, strconv.Quote(k))
			}
		}
	}
	out, err := params.Pack(vals...)
	if err != nil {
		return nil, fmt.Errorf("%w: args: %w", chain.ErrInvalidTx, err)
	}
	return out, nil
}

func hasParam(params abi.Arguments, key string) bool {
	for i, p := range params {
		if argName(p.Name, i) == key || p.Name == key {
			return true
		}
	}
	return false
}

// goValue converts one JSON value to the Go value abi packs for t (of type
// t.GetType()). path names the value in messages.
func goValue(t abi.Type, raw json.RawMessage, path string) (reflect.Value, error) {
	bad := func(want string) (reflect.Value, error) {
		return reflect.Value{}, fmt.Errorf("%w: args: %s must be %s (%s), not %s", chain.ErrInvalidTx, path, want, t.String(), excerpt(raw))
	}
	switch t.T {
	case abi.IntTy, abi.UintTy:
		n, ok := parseInt(raw)
		if !ok {
			return bad("an integer (a decimal string or a JSON integer)")
		}
		if !intFits(n, t) {
			return bad("an integer in range")
		}
		typ := t.GetType()
		if typ == reflect.TypeFor[*big.Int]() {
			return reflect.ValueOf(n), nil
		}
		v := reflect.New(typ).Elem()
		if t.T == abi.IntTy {
			v.SetInt(n.Int64())
		} else {
			v.SetUint(n.Uint64())
		}
		return v, nil
	case abi.BoolTy:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return bad("true or false")
		}
		return reflect.ValueOf(b), nil
	case abi.StringTy:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return bad("a string")
		}
		return reflect.ValueOf(s), nil
	case abi.AddressTy:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") {
			return bad(`an address ("0x" and 40 hex digits)`)
		}
		return reflect.ValueOf(common.HexToAddress(s)), nil
	case abi.BytesTy, abi.FixedBytesTy:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || !strings.HasPrefix(s, "0x") {
			return bad(`bytes ("0x" and hex digits)`)
		}
		b, err := hex.DecodeString(s[2:])
		if err != nil {
			return bad(`bytes ("0x" and hex digits)`)
		}
		if t.T == abi.BytesTy {
			return reflect.ValueOf(b), nil
		}
		if len(b) != t.Size {
			return bad(fmt.Sprintf("%d bytes", t.Size))
		}
		v := reflect.New(t.GetType()).Elem()
		reflect.Copy(v, reflect.ValueOf(b))
		return v, nil
	case abi.SliceTy, abi.ArrayTy:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil || items == nil {
			return bad("an array")
		}
		var v reflect.Value
		if t.T == abi.SliceTy {
			v = reflect.MakeSlice(t.GetType(), len(items), len(items))
		} else {
			if len(items) != t.Size {
				return bad(fmt.Sprintf("an array of %d", t.Size))
			}
			v = reflect.New(t.GetType()).Elem()
		}
		for i, it := range items {
			e, err := goValue(*t.Elem, it, fmt.Sprintf("%s/%d", path, i))
			if err != nil {
				return reflect.Value{}, err
			}
			v.Index(i).Set(e)
		}
		return v, nil
	case abi.TupleTy:
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return bad("an object")
		}
		if len(obj) != len(t.TupleElems) {
			return bad(fmt.Sprintf("an object of %d fields", len(t.TupleElems)))
		}
		v := reflect.New(t.TupleType).Elem()
		for i, et := range t.TupleElems {
			key := argName(t.TupleRawNames[i], i)
			fr, ok := obj[key]
			if !ok {
				fr, ok = obj[t.TupleRawNames[i]]
			}
			if !ok {
				return reflect.Value{}, fmt.Errorf("%w: args: %s/%s is missing", chain.ErrInvalidTx, path, key)
			}
			e, err := goValue(*et, fr, path+"/"+key)
			if err != nil {
				return reflect.Value{}, err
			}
			v.Field(i).Set(e)
		}
		return v, nil
	}
	return reflect.Value{}, fmt.Errorf("%w: args: %s: the ABI type %s is not supported", chain.ErrInvalidTx, path, t.String())
}

// parseInt reads a JSON integer or a string of a decimal integer.
func parseInt(raw json.RawMessage) (*big.Int, bool) {
	raw = bytes.TrimSpace(raw)
	s := string(raw)
	if len(raw) > 0 && raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, false
		}
	}
	if s == "" || len(s) > 100 {
		return nil, false
	}
	n, ok := new(big.Int).SetString(s, 10)
	return n, ok
}

// intFits reports whether n is in the range of the integer type t.
func intFits(n *big.Int, t abi.Type) bool {
	if t.T == abi.UintTy {
		return n.Sign() >= 0 && n.BitLen() <= t.Size
	}
	lim := new(big.Int).Lsh(big.NewInt(1), uint(t.Size-1))
	return n.Cmp(new(big.Int).Neg(lim)) >= 0 && n.Cmp(lim) < 0
}

// jsonOf converts a value abi unpacked for t to its JSON form (marshal the
// result): integers as decimal strings, addresses lowercase, bytes as 0x hex.
func jsonOf(t abi.Type, v any) any {
	rv := reflect.ValueOf(v)
	switch t.T {
	case abi.IntTy, abi.UintTy:
		switch x := v.(type) {
		case *big.Int:
			return x.String()
		}
		if rv.CanInt() {
			return strconv.FormatInt(rv.Int(), 10)
		}
		if rv.CanUint() {
			return strconv.FormatUint(rv.Uint(), 10)
		}
	case abi.BoolTy, abi.StringTy:
		return v
	case abi.AddressTy:
		if a, ok := v.(common.Address); ok {
			return addressOf(a)
		}
	case abi.BytesTy:
		if b, ok := v.([]byte); ok {
			return "0x" + hex.EncodeToString(b)
		}
	case abi.FixedBytesTy, abi.HashTy, abi.FunctionTy:
		if rv.Kind() == reflect.Array {
			b := make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(b), rv)
			return "0x" + hex.EncodeToString(b)
		}
	case abi.SliceTy, abi.ArrayTy:
		if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
			out := make([]any, rv.Len())
			for i := range out {
				out[i] = jsonOf(*t.Elem, rv.Index(i).Interface())
			}
			return out
		}
	case abi.TupleTy:
		if rv.Kind() == reflect.Pointer {
			rv = rv.Elem()
		}
		if rv.Kind() == reflect.Struct {
			out := make(map[string]any, len(t.TupleElems))
			for i, et := range t.TupleElems {
				out[argName(t.TupleRawNames[i], i)] = jsonOf(*et, rv.Field(i).Interface())
			}
			return out
		}
	}
	return fmt.Sprint(v)
}

// argsJSON returns the JSON object of unpacked values by their parameters'
// names (args of a call, fields of an event).
func argsJSON(params abi.Arguments, vals []any) json.RawMessage {
	if len(params) == 0 {
		return nil
	}
	out := make(map[string]any, len(params))
	for i, p := range params {
		if i < len(vals) {
			out[argName(p.Name, i)] = jsonOf(p.Type, vals[i])
		}
	}
	return marshal(out)
}

// marshal is json.Marshal without HTML escaping, in canonical form (map
// keys sorted). The values jsonOf returns always marshal.
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage(strconv.Quote(fmt.Sprint(v)))
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// renderArgs writes unpacked values for a reason: Name(a, b), integers
// bare, strings quoted, the rest as JSON.
func renderArgs(params abi.Arguments, vals []any) string {
	parts := make([]string, 0, len(vals))
	for i, v := range vals {
		if i >= len(params) {
			break
		}
		j := jsonOf(params[i].Type, v)
		switch params[i].Type.T {
		case abi.IntTy, abi.UintTy:
			parts = append(parts, fmt.Sprint(j))
		case abi.StringTy:
			parts = append(parts, strconv.Quote(fmt.Sprint(j)))
		default:
			parts = append(parts, string(marshal(j)))
		}
	}
	return strings.Join(parts, ", ")
}

// excerpt shortens a JSON value for a message.
func excerpt(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		return s[:40] + "…"
	}
	if s == "" {
		return "nothing"
	}
	return s
}

// snakeCase is the ordo form of an ABI name: castVote → cast_vote,
// getURL → get_url.
func snakeCase(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			prevLower := i > 0 && (name[i-1] >= 'a' && name[i-1] <= 'z' || name[i-1] >= '0' && name[i-1] <= '9')
			nextLower := i > 0 && i+1 < len(name) && name[i+1] >= 'a' && name[i+1] <= 'z' && name[i-1] >= 'A' && name[i-1] <= 'Z'
			if prevLower || nextLower {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
