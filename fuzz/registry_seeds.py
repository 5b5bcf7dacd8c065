#!/usr/bin/env python3
# Small registry dumps for fuzz seeds: a few types with everything they reference (parents,
# subtypes, members, template types, interfaces), grouped as the dump groups them.
import re, sys, random
import xml.etree.ElementTree as ET
src = sys.argv[1]; out = sys.argv[2]
tree = ET.parse(src); root = tree.getroot()
groups = {}; by_id = {}
for g in root:
    for t in g:
        by_id[t.get("Id")] = (g.tag, t)
def refs(t):
    for k in ("Parent", "SubType"):
        v = t.get(k)
        if v and v != "0": yield v
    for e in t.iter():
        if e is t: continue
        if e.get("Type"): yield e.get("Type")
        if e.get("Kind") == "Type" and e.get("Value"): yield e.get("Value")
def closure(ids):
    seen = set(); stack = list(ids)
    while stack:
        i = stack.pop()
        if i in seen or i not in by_id: continue
        seen.add(i); stack.extend(refs(by_id[i][1]))
    return seen
random.seed(7)
ids = list(by_id)
picks = [[i] for i in random.sample(ids, 60)]
for n, pick in enumerate(picks):
    c = closure(pick)
    if len(c) > 120: continue
    r = ET.Element("HavokTypeRegistry", Version=root.get("Version"))
    gs = {}
    for i in sorted(c, key=int):
        tag, t = by_id[i]
        if tag not in gs: gs[tag] = ET.SubElement(r, tag)
        gs[tag].append(t)
    ET.ElementTree(r).write(f"{out}/closure_{n:02}.xml", encoding="utf-8", xml_declaration=True)
