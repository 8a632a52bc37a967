package schema

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// kernelNameRE is what a kernel name may hold: it is matched against the
// kernelName a trace carries and the --kernel-name flag.
var kernelNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// families reads the kernel families. Every name a family gives must be
// unambiguous: family names and kernel names (by KernelKey) are unique
// across families; task-type values and names, stage ids and names are
// unique within a family; a stage id lies in a namespace without an enum
// (the task-type namespace is named by task_types) and is no id the
// namespaces already name (the runtime's WaitDependency, TerminateTask and
// TriggerEvent mean the same in every kernel).
func (l *loader) families(n *yaml.Node) {
	famNames := l.scope("family name")
	kernels := map[string]Pos{}
	ttNS := l.s.Descriptors.TaskTypeNamespace()
	for i, fn := range l.Seq(n, "families") {
		path := fmt.Sprintf("families[%d]", i)
		m := l.fields(fn, path, []string{"name", "upstream", "doc"}, []string{"kernel_names", "owner_label", "task_types", "stages"})
		if m == nil {
			continue
		}
		fam := &Family{Pos: pos(fn)}
		name, ok := l.name(m["name"], path+".name", typeNameRE, "family name")
		if ok {
			path = "families." + name
			ok = famNames.add(m["name"], path, name)
		}
		fam.Name = name
		fam.Doc = l.doc(m, path)
		if up, uok := l.Str(m["upstream"], path+".upstream"); uok {
			if strings.TrimSpace(up) == "" {
				l.Errorf(m["upstream"], path+".upstream", "name the upstream files and commits the tables follow")
			} else if problem := unsafeDoc(up); problem != "" {
				l.Errorf(m["upstream"], path+".upstream", "%s", problem)
			}
			fam.Upstream = strings.TrimSpace(up)
		}
		if kn := m["kernel_names"]; kn != nil {
			for j, k := range l.Seq(kn, path+".kernel_names") {
				kpath := fmt.Sprintf("%s.kernel_names[%d]", path, j)
				kname, kok := l.Str(k, kpath)
				if !kok {
					continue
				}
				if !kernelNameRE.MatchString(kname) {
					l.Errorf(k, kpath, "%q is not a valid kernel name (want %s)", kname, kernelNameRE.String())
					continue
				}
				key := KernelKey(kname)
				if p, dup := kernels[key]; dup {
					l.Errorf(k, kpath, "kernel name %q already selects a family at line %d (names compare case-insensitively, ignoring '_')", kname, p.Line)
					continue
				}
				kernels[key] = pos(k)
				fam.KernelNames = append(fam.KernelNames, kname)
			}
		}
		if ol := m["owner_label"]; ol != nil {
			if label, lok := l.name(ol, path+".owner_label", valueNameRE, "owner label"); lok {
				fam.OwnerLabel = label
			}
		}
		if tt := m["task_types"]; tt != nil {
			l.familyTaskTypes(fam, tt, path+".task_types", ttNS)
		}
		if st := m["stages"]; st != nil {
			l.familyStages(fam, st, path+".stages")
		}
		if ok {
			l.s.Families = append(l.s.Families, fam)
		}
	}
}

func (l *loader) familyTaskTypes(fam *Family, n *yaml.Node, path string, ns *Namespace) {
	if ns == nil {
		l.Errorf(n, path, "task_types name the ids of a namespace named after an enum, and the schema has none")
		return
	}
	names := l.scope("task type name")
	values := map[uint64]Pos{}
	for j, tn := range l.Seq(n, path) {
		tpath := fmt.Sprintf("%s[%d]", path, j)
		tm := l.fields(tn, tpath, []string{"value", "name"}, []string{"doc"})
		if tm == nil {
			continue
		}
		tname, nok := l.name(tm["name"], tpath+".name", valueNameRE, "task type name")
		if nok {
			nok = names.add(tm["name"], tpath+".name", tname)
		}
		v, vok := l.Uint(tm["value"], tpath+".value", math.MaxUint32)
		if vok {
			if v >= uint64(ns.Count) {
				l.Errorf(tm["value"], tpath+".value", "task type %d is outside the %s namespace's %d ids", v, ns.Name, ns.Count)
				vok = false
			} else if p, dup := values[v]; dup {
				l.Errorf(tm["value"], tpath+".value", "duplicate task type %d (first at line %d)", v, p.Line)
				vok = false
			} else {
				values[v] = pos(tm["value"])
			}
		}
		if nok && vok {
			fam.TaskTypes = append(fam.TaskTypes, &FamilyTaskType{Value: uint32(v), Name: tname, Doc: l.doc(tm, tpath), Pos: pos(tn)})
		}
	}
}

func (l *loader) familyStages(fam *Family, n *yaml.Node, path string) {
	// A name is unique among the family's stages of one namespace: the
	// graph-driven MegaMoe kernel names its graph stages as the older one
	// named its runtime-namespace stages (Dispatch, GMM1, ...), under one
	// kernel name. The C++ emitter tells such a pair apart (EarlierNamed).
	names := map[string]*names{}
	ids := map[uint64]Pos{}
	for j, sn := range l.Seq(n, path) {
		spath := fmt.Sprintf("%s[%d]", path, j)
		sm := l.fields(sn, spath, []string{"desc_id", "name", "class", "doc"}, []string{"task_type"})
		if sm == nil {
			continue
		}
		st := &FamilyStage{Pos: pos(sn)}
		sname, ok := l.name(sm["name"], spath+".name", valueNameRE, "stage name")
		st.Name = sname
		if id, iok := l.Uint(sm["desc_id"], spath+".desc_id", math.MaxUint32); iok {
			st.DescID = uint32(id)
			if p, dup := ids[id]; dup {
				l.Errorf(sm["desc_id"], spath+".desc_id", "duplicate stage id %#x (first at line %d)", id, p.Line)
				ok = false
			} else {
				ids[id] = pos(sm["desc_id"])
				ok = l.stageID(sm["desc_id"], spath+".desc_id", st) && ok
			}
		} else {
			ok = false
		}
		if ok && st.Namespace != nil {
			scope := names[st.Namespace.Name]
			if scope == nil {
				scope = l.scope(st.Namespace.Name + " stage name")
				names[st.Namespace.Name] = scope
			}
			ok = scope.add(sm["name"], spath+".name", sname)
		}
		if c, cok := l.Str(sm["class"], spath+".class"); cok {
			st.Class = StageClass(c)
			valid := false
			for _, k := range StageClasses {
				valid = valid || st.Class == k
			}
			if !valid {
				l.Errorf(sm["class"], spath+".class", "unknown class %q (want compute, wait or trigger)", c)
				ok = false
			}
		}
		if tt := sm["task_type"]; tt != nil {
			if tname, tok := l.Str(tt, spath+".task_type"); tok {
				for _, t := range fam.TaskTypes {
					if t.Name == tname {
						st.TaskType = t
					}
				}
				if st.TaskType == nil {
					l.Errorf(tt, spath+".task_type", "%q is none of the family's task_types", tname)
					ok = false
				}
			}
		}
		st.Doc = l.doc(sm, spath)
		if ok {
			fam.Stages = append(fam.Stages, st)
		}
	}
}

// stageID checks that a family stage id lies in a namespace a kernel may
// name ids in and is not an id the namespaces name already.
func (l *loader) stageID(n *yaml.Node, path string, st *FamilyStage) bool {
	d := l.s.Descriptors
	if d == nil {
		return false
	}
	for _, ns := range d.Namespaces {
		if uint64(st.DescID) < uint64(ns.Base) || uint64(st.DescID) >= ns.End() {
			continue
		}
		if ns.Enum != nil {
			l.Errorf(n, path, "%#x is in %s, whose ids are task types: name it in task_types", st.DescID, ns.Name)
			return false
		}
		for _, dn := range ns.Names {
			if ns.Base+dn.Index == st.DescID {
				l.Errorf(n, path, "%#x is %s.%s, which every kernel shares; a family cannot rename it", st.DescID, ns.Name, dn.Name)
				return false
			}
		}
		st.Namespace = ns
		return true
	}
	l.Errorf(n, path, "%#x is in no descriptor namespace", st.DescID)
	return false
}
