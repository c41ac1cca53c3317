package doccheck

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// ConfigRefCommand is the command that writes docs/configuration-reference.md
// again, from the repository's root.
const ConfigRefCommand = "go run ./internal/doccheck/cmd/configref"

// ConfigRefPath is where the configuration reference is committed,
// relative to the repository's root.
const ConfigRefPath = "docs/configuration-reference.md"

// Field is one field of the node's configuration.
type Field struct {
	// Key is the field's YAML key from the top of the file, dotted:
	// api.tls.certFile. A list of objects adds [] (senders[].keyFile), a
	// map of objects .<key> (types.<key>.maxRetries).
	Key string
	// Type is the YAML type: string, int, bool, duration, a list of …, a
	// map of …, or object (a section of its own).
	Type string
	// Doc is the field's comment, on one line.
	Doc string
	// Default is what the comment says after "Defaults to" ("required"
	// when it says the field is required, "" when it says nothing).
	Default string
	// Section is the key of the section that lists the fields of the
	// object the field holds (Key, Key[] or Key.<key>); "" for a field that
	// holds no object.
	Section string
	// group counts the fields above this one that share its comment.
	group int
}

// Section is the fields of one object of the configuration.
type Section struct {
	// Key is the object's YAML key ("" for the top of the file).
	Key string
	// Type is the Go type the fields come from, as package.Name.
	Type string
	// Doc is the type's comment, on one line.
	Doc string
	// Fields are the object's fields, in the order of the source.
	Fields []Field
}

// typeDecl is a type declaration found in a package's source.
type typeDecl struct {
	pkg     string // import path
	name    string
	doc     string
	expr    ast.Expr
	imports map[string]string // the declaring file's imports: name to path
}

// loader reads the module's packages' type declarations on demand.
type loader struct {
	root, module string
	pkgs         map[string]map[string]*typeDecl
	out          []Section
}

// modulePath reads the module path from root's go.mod.
func modulePath(root string) (string, error) {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("doccheck: %w", err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.TrimSpace(m), nil
		}
	}
	return "", fmt.Errorf("doccheck: no module line in %s", filepath.Join(root, "go.mod"))
}

// pkg returns the type declarations of the package at an import path of
// the module, or nil for a package outside it.
func (l *loader) pkg(importPath string) (map[string]*typeDecl, error) {
	if p, ok := l.pkgs[importPath]; ok {
		return p, nil
	}
	rel, ok := strings.CutPrefix(importPath, l.module+"/")
	if !ok {
		return nil, nil
	}
	dir := filepath.Join(l.root, filepath.FromSlash(rel))
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, fmt.Errorf("doccheck: %w", err)
	}
	decls := map[string]*typeDecl{}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("doccheck: %w", err)
		}
		imports := map[string]string{}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			n := path.Base(p)
			if im.Name != nil {
				n = im.Name.Name
			}
			imports[n] = p
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(g.Specs) == 1 {
					doc = g.Doc
				}
				decls[ts.Name.Name] = &typeDecl{pkg: importPath, name: ts.Name.Name, doc: oneLine(doc), expr: ts.Type, imports: imports}
			}
		}
	}
	l.pkgs[importPath] = decls
	return decls, nil
}

// resolve finds the declaration a type expression names, or nil for a
// type declared outside the module or a built-in one.
func (l *loader) resolve(in *typeDecl, e ast.Expr) (*typeDecl, error) {
	var pkgPath, name string
	switch t := e.(type) {
	case *ast.Ident:
		pkgPath, name = in.pkg, t.Name
	case *ast.SelectorExpr:
		x, ok := t.X.(*ast.Ident)
		if !ok {
			return nil, nil
		}
		pkgPath, name = in.imports[x.Name], t.Sel.Name
	default:
		return nil, nil
	}
	decls, err := l.pkg(pkgPath)
	if err != nil || decls == nil {
		return nil, err
	}
	return decls[name], nil
}

// oneLine is a comment group's text on one line.
func oneLine(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}

// ConfigSections reads the node's configuration types from the source of
// the module at root and returns their sections: the top of the file
// first, then each object in the order it is met.
func ConfigSections(root string) ([]Section, error) {
	module, err := modulePath(root)
	if err != nil {
		return nil, err
	}
	l := &loader{root: root, module: module, pkgs: map[string]map[string]*typeDecl{}}
	decls, err := l.pkg(module + "/internal/node")
	if err != nil {
		return nil, err
	}
	top := decls["Config"]
	if top == nil {
		return nil, fmt.Errorf("doccheck: no type Config in %s/internal/node", module)
	}
	if err := l.section(top, ""); err != nil {
		return nil, err
	}
	return l.out, nil
}

// nestedSection is an object met in a section, listed after it.
type nestedSection struct {
	decl *typeDecl
	key  string
}

// section appends the section of the struct d, at key, and then the
// sections of the objects it holds.
func (l *loader) section(d *typeDecl, key string) error {
	st, ok := structOf(d)
	if !ok {
		return fmt.Errorf("doccheck: %s.%s is not a struct", d.pkg, d.name)
	}
	var nested []nestedSection
	fields, err := l.fields(d, st, key, &nested)
	if err != nil {
		return err
	}
	l.out = append(l.out, Section{Key: key, Type: path.Base(d.pkg) + "." + d.name, Doc: d.doc, Fields: fields})
	for _, n := range nested {
		if err := l.section(n.decl, n.key); err != nil {
			return err
		}
	}
	return nil
}

// fields lists a struct's YAML fields under key; the objects it holds are
// added to nested, to be listed after it.
func (l *loader) fields(d *typeDecl, st *ast.StructType, key string, nested *[]nestedSection) ([]Field, error) {
	var out []Field
	shared := false // the last field listed may share its comment with the next
	for _, f := range st.Fields.List {
		yamlKey, inline, ok := yamlName(f)
		if !ok {
			shared = false
			continue
		}
		if inline {
			td, err := l.resolve(d, f.Type)
			if err != nil {
				return nil, err
			}
			ist, ok := structOf(td)
			if !ok {
				return nil, fmt.Errorf("doccheck: %s.%s: an inline field that is not a struct", d.pkg, d.name)
			}
			more, err := l.fields(td, ist, key, nested)
			if err != nil {
				return nil, err
			}
			out = append(out, more...)
			shared = false
			continue
		}
		doc := oneLine(f.Doc)
		group := 0
		if doc == "" && shared && len(out) > 0 {
			// A field right under another, without a comment of its own,
			// shares that comment ("BackoffMin and BackoffMax bound …").
			doc = out[len(out)-1].Doc
			group = out[len(out)-1].group + 1
		}
		full := joinKey(key, yamlKey)
		typ, sub, subKey, err := l.typeOf(d, f.Type, full)
		if err != nil {
			return nil, err
		}
		out = append(out, Field{Key: full, Type: typ, Doc: doc, Section: subKey, group: group})
		if sub != nil {
			*nested = append(*nested, nestedSection{decl: sub, key: subKey})
		}
		shared = true
	}
	setDefaults(out)
	return out, nil
}

// structOf is a declaration's struct type, if it is one.
func structOf(d *typeDecl) (*ast.StructType, bool) {
	if d == nil {
		return nil, false
	}
	st, ok := d.expr.(*ast.StructType)
	return st, ok
}

// yamlName is a field's YAML key from its tag, and whether it is inlined;
// ok is false for a field YAML does not see (unexported, or "-").
func yamlName(f *ast.Field) (name string, inline, ok bool) {
	if len(f.Names) > 1 || (len(f.Names) == 1 && !f.Names[0].IsExported()) {
		return "", false, false
	}
	var tag string
	if f.Tag != nil {
		t, _ := strconv.Unquote(f.Tag.Value)
		tag = reflectTag(t, "yaml")
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "-" {
		return "", false, false
	}
	if strings.Contains(","+opts+",", ",inline,") {
		return "", true, true
	}
	if name == "" {
		if len(f.Names) == 0 {
			return "", false, false
		}
		name = strings.ToLower(f.Names[0].Name) // go.yaml.in/yaml's default
	}
	return name, false, true
}

// reflectTag is the value of one key of a struct tag.
func reflectTag(tag, key string) string {
	for tag != "" {
		tag = strings.TrimLeft(tag, " ")
		k, rest, ok := strings.Cut(tag, ":\"")
		if !ok {
			return ""
		}
		v, after, ok := strings.Cut(rest, "\"")
		if !ok {
			return ""
		}
		if k == key {
			return v
		}
		tag = after
	}
	return ""
}

// joinKey is key.name, or name at the top.
func joinKey(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}

// typeOf names a field's YAML type. For a struct, or a list or map of
// structs, it also returns the struct's declaration and the key its
// fields go under.
func (l *loader) typeOf(in *typeDecl, e ast.Expr, key string) (string, *typeDecl, string, error) {
	switch t := e.(type) {
	case *ast.StarExpr:
		return l.typeOf(in, t.X, key)
	case *ast.ArrayType:
		elem, sub, subKey, err := l.typeOf(in, t.Elt, key+"[]")
		if sub != nil {
			return "list of objects", sub, subKey, err
		}
		return "list of " + elem, nil, "", err
	case *ast.MapType:
		k, _, _, err := l.typeOf(in, t.Key, key)
		if err != nil {
			return "", nil, "", err
		}
		v, sub, subKey, err := l.typeOf(in, t.Value, key+".<key>")
		if sub != nil {
			return "map of " + k + " to objects", sub, subKey, err
		}
		return "map of " + k + " to " + v, nil, "", err
	case *ast.Ident:
		if basic[t.Name] != "" {
			return basic[t.Name], nil, "", nil
		}
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok && in.imports[x.Name] == "time" && t.Sel.Name == "Duration" {
			return "duration", nil, "", nil
		}
	}
	d, err := l.resolve(in, e)
	if err != nil {
		return "", nil, "", err
	}
	if d == nil {
		return types.ExprString(e), nil, "", nil
	}
	if d.name == "Duration" {
		return "duration", nil, "", nil
	}
	if _, ok := structOf(d); ok {
		return "object", d, key, nil
	}
	return l.typeOf(d, d.expr, key)
}

// basic names Go's basic types as YAML has them.
var basic = map[string]string{
	"string": "string", "bool": "bool",
	"int": "int", "int8": "int", "int16": "int", "int32": "int", "int64": "int",
	"uint": "int", "uint8": "int", "uint16": "int", "uint32": "int", "uint64": "int",
	"float32": "number", "float64": "number",
}

var (
	// defaultsTo finds the default a comment states.
	defaultsTo = regexp.MustCompile(`\b(?:Defaults|Default) to (.*)`)
	// required finds a comment that says the field is required.
	required = regexp.MustCompile(`(?i)\brequired\b`)
	// sentenceEnd ends the default's sentence: a period before a space and
	// a capital, or at the end.
	sentenceEnd = regexp.MustCompile(`\.(\s+[A-Z(]|\s*$)`)
)

// setDefaults fills each field's Default from its comment. Fields that
// share a comment ("Default to 1s and 5m.") take their part in order.
func setDefaults(fields []Field) {
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].group > 0 {
			j++
		}
		def := defaultOf(fields[i].Doc)
		parts := []string{def}
		if n := j - i; n > 1 {
			if p := strings.Split(def, " and "); len(p) == n {
				parts = p
			}
		}
		for k := i; k < j; k++ {
			fields[k].Default = parts[min(k-i, len(parts)-1)]
		}
		i = j
	}
}

// defaultOf is the default a comment states.
func defaultOf(doc string) string {
	m := defaultsTo.FindStringSubmatch(doc)
	if m == nil {
		if required.MatchString(doc) {
			return "required"
		}
		return ""
	}
	d := m[1]
	if loc := sentenceEnd.FindStringIndex(d); loc != nil {
		d = d[:loc[0]]
	}
	return strings.TrimSpace(d)
}

// ConfigReference renders the configuration reference of the module at
// root as Markdown: docs/configuration-reference.md.
func ConfigReference(root string) ([]byte, error) {
	sections, err := ConfigSections(root)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Configuration reference\n\n")
	fmt.Fprintf(&b, "<!-- Made by `%s` from the comments of the config types. Do not edit: change the comments and run it again. -->\n\n", ConfigRefCommand)
	b.WriteString("Every field of the node's YAML file (`ordo serve --config FILE`), its type and its default.\n")
	b.WriteString("This page is made from the comments of the config types in `internal/node` (and `internal/smm`, `internal/auth`).\n")
	b.WriteString("A field left out takes its default. Unknown fields are refused at start.\n")
	b.WriteString("Flags of `ordo serve` override the file.\n")
	b.WriteString("Durations are Go durations: `500ms`, `30s`, `10m`, `24h`.\n\n")
	b.WriteString("[configuration.md](configuration.md) explains the file; [ordo.example.yaml](ordo.example.yaml) shows every field with its default.\n\n")
	b.WriteString("Sections:\n\n")
	for _, s := range sections {
		fmt.Fprintf(&b, "- [%s](#%s)\n", sectionTitle(s), Slug(sectionTitle(s)))
	}
	for _, s := range sections {
		fmt.Fprintf(&b, "\n## %s\n\n", sectionTitle(s))
		if s.Doc != "" {
			fmt.Fprintf(&b, "%s (`%s`)\n\n", s.Doc, s.Type)
		}
		b.WriteString("| key | type | default | description |\n| --- | --- | --- | --- |\n")
		for _, f := range s.Fields {
			typ := f.Type
			if f.Section != "" {
				typ = fmt.Sprintf("[%s](#%s)", f.Type, Slug(f.Section))
			}
			def := f.Default
			if def == "" {
				def = "—"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.Key, typ, cell(def), cell(f.Doc))
		}
	}
	return b.Bytes(), nil
}

// sectionTitle is a section's heading: its key in code, or "Top level".
func sectionTitle(s Section) string {
	if s.Key == "" {
		return "Top level"
	}
	return "`" + s.Key + "`"
}

// cell makes text safe in a table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "\n", " ")
}
