package matrix

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// join adds the profiles of extra to the matrix document doc, so that they
// are checked and decoded as the matrix's own, each node remembered as
// extra's for the messages. A profile named in both files is an error.
func (d *decoder) join(doc *yaml.Node, extra *source) error {
	if err := checkShape(extra.path, extra.data); err != nil {
		return err
	}
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(extra.data)).Decode(&root); err != nil {
		return syntaxError(extra.path, extra.data, err)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return Errors{{File: extra.path, Line: 1, Col: 1, Msg: "a profiles file is a mapping with one key, profiles"}}
	}
	top := root.Content[0]
	var profiles *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k := top.Content[i]
		if k.Value != "profiles" {
			return Errors{{File: extra.path, Line: k.Line, Col: k.Column, Field: k.Value, Msg: "a profiles file holds profiles: only (targets, scenarios and settings stay in the matrix)"}}
		}
		profiles = top.Content[i+1]
	}
	if profiles == nil || profiles.Kind != yaml.MappingNode || doc.Kind != yaml.MappingNode {
		return Errors{{File: extra.path, Line: top.Line, Col: top.Column, Field: "profiles", Msg: "want a mapping of profile names"}}
	}
	mark(profiles, extra.path, d.fileOf)
	return d.addProfiles(doc, profiles, extra.path)
}

// addProfiles appends the profiles mapping to doc's, refusing a name both
// define.
func (d *decoder) addProfiles(doc, profiles *yaml.Node, path string) error {
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value != "profiles" {
			continue
		}
		own := doc.Content[i+1]
		var errs Errors
		for j := 0; j+1 < len(own.Content); j += 2 {
			for k := 0; k+1 < len(profiles.Content); k += 2 {
				if a, b := own.Content[j], profiles.Content[k]; a.Value == b.Value {
					errs = append(errs, &Error{File: path, Line: b.Line, Col: b.Column, Field: "profiles." + b.Value,
						Msg: fmt.Sprintf("profile %q is also defined in %s at line %d", b.Value, d.file, a.Line)})
				}
			}
		}
		if len(errs) > 0 {
			return errs
		}
		own.Content = append(own.Content, profiles.Content...)
		return nil
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "profiles", Line: profiles.Line, Column: profiles.Column}
	d.fileOf[key] = path
	doc.Content = append(doc.Content, key, profiles)
	return nil
}

// mark records n and every node under it as path's.
func mark(n *yaml.Node, path string, fileOf map[*yaml.Node]string) {
	fileOf[n] = path
	for _, c := range n.Content {
		mark(c, path, fileOf)
	}
	if n.Alias != nil {
		mark(n.Alias, path, fileOf)
	}
}
