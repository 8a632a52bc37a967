
# ---------------------------------------------------------------------------
# Layout helpers.


class LayoutError(ValueError):
    """A layout that cannot exist: too few cube slots, a capacity the ABI
    refuses, more slots than a u32 block id numbers, or a size past 2**64-1."""


def check_capacity(capacity):
    """Raise LayoutError unless capacity is a multiple of the capacity
    alignment and at most MAX_RECORDS_PER_CORE."""
    capacity = int(capacity)
    if capacity < 0 or capacity > _MAX_RECORDS_PER_CORE:
        raise LayoutError("record capacity %d exceeds the maximum records per core (%d)"
                          % (capacity, _MAX_RECORDS_PER_CORE))
    if capacity % _CAPACITY_ALIGNMENT:
        raise LayoutError("record capacity %d is not a multiple of %d" % (capacity, _CAPACITY_ALIGNMENT))


def round_up_capacity(required):
    """The smallest capacity that holds required records: required rounded up
    to a multiple of the capacity alignment. More than MAX_RECORDS_PER_CORE is
    a LayoutError (records are never dropped by planning too small a buffer)."""
    required = int(required)
    if required < 0 or required > _MAX_RECORDS_PER_CORE:
        raise LayoutError("%d records exceed the maximum records per core (%d)"
                          % (required, _MAX_RECORDS_PER_CORE))
    return (required + _CAPACITY_ALIGNMENT - 1) // _CAPACITY_ALIGNMENT * _CAPACITY_ALIGNMENT


def max_records_per_core():
    """The largest record capacity of a slot, derived as the schema derives it:
    floor((slot stride limit - header size) / record size / alignment) * alignment."""
    return (_SLOT_STRIDE_LIMIT - HEADER_SIZE) // RECORD_SIZE // _CAPACITY_ALIGNMENT * _CAPACITY_ALIGNMENT


def slot_stride(capacity):
    """The bytes of a slot holding capacity records: its header and the records."""
    return HEADER_SIZE + RECORD_SIZE * int(capacity)


class Slot(object):
    """One core's slot: where it is, and (in a Capture) what it holds.

    core_type and block_id name the core; offset is the slot's byte offset in
    the buffer; capacity its record capacity. In a Capture, header is the
    slot's header as a NumPy record and records the live records as a
    zero-copy structured view (RECORD_DTYPE) of the buffer.
    """

    __slots__ = ("core_type", "block_id", "offset", "capacity", "header", "records")

    def __init__(self, core_type, block_id, offset, capacity, header=None, records=None):
        self.core_type = core_type
        self.block_id = block_id
        self.offset = offset
        self.capacity = capacity
        self.header = header
        self.records = records

    @property
    def name(self):
        """The slot's name in messages and traces: "AIC/3"."""
        return "%s/%d" % (self.core_type.name, self.block_id)

    def record_offset(self, index):
        """The buffer offset of record index of the slot."""
        return self.offset + HEADER_SIZE + RECORD_SIZE * int(index)

    def __repr__(self):
        return "Slot(%s, offset=%#x, capacity=%d)" % (self.name, self.offset, self.capacity)


class Layout(object):
    """The arrangement of slots in the buffer: the regions of REGIONS in order,
    each of slots_per_cube_slot * cube_slots slots of one capacity.

    capacities is a sequence in REGIONS order or a mapping from core type to
    capacity. The constructor checks the layout (LayoutError)."""

    __slots__ = ("cube_slots", "capacities")

    def __init__(self, cube_slots, capacities):
        cube_slots = int(cube_slots)
        if isinstance(capacities, dict):
            capacities = tuple(int(capacities.get(r.core_type, 0)) for r in REGIONS)
        capacities = tuple(int(c) for c in capacities)
        if len(capacities) != len(REGIONS):
            raise LayoutError("want %d capacities (one per region), got %d" % (len(REGIONS), len(capacities)))
        if cube_slots < _MIN_CUBE_SLOTS:
            raise LayoutError("layout with %d cube slots: fewer than the minimum (%d)" % (cube_slots, _MIN_CUBE_SLOTS))
        for r, capacity in zip(REGIONS, capacities):
            try:
                check_capacity(capacity)
            except LayoutError as e:
                raise LayoutError("%s %s" % (r.core_type.name, e))
            if r.slots_per_cube_slot * cube_slots > 0xFFFFFFFF:
                raise LayoutError("layout with %d cube slots: %d %s slots are more than a u32 block id numbers"
                                  % (cube_slots, r.slots_per_cube_slot * cube_slots, r.core_type.name))
        self.cube_slots = cube_slots
        self.capacities = capacities
        if self.size > 0xFFFFFFFFFFFFFFFF:
            raise LayoutError("layout with %d cube slots: the buffer size overflows a uint64" % cube_slots)

    def capacity(self, core_type):
        """The record capacity of core_type's slots (0 for a core type with no region)."""
        for r, capacity in zip(REGIONS, self.capacities):
            if r.core_type == core_type:
                return capacity
        return 0

    def slot_count(self, core_type):
        """The number of slots of core_type (block ids 0 to slot_count-1)."""
        for r in REGIONS:
            if r.core_type == core_type:
                return r.slots_per_cube_slot * self.cube_slots
        return 0

    @property
    def num_slots(self):
        """The number of slots in the buffer."""
        return sum(r.slots_per_cube_slot for r in REGIONS) * self.cube_slots

    def region_offset(self, index):
        """The buffer offset of the first slot of REGIONS[index]."""
        start = 0
        for r, capacity in zip(REGIONS[:index], self.capacities):
            start += r.slots_per_cube_slot * self.cube_slots * slot_stride(capacity)
        return start

    @property
    def size(self):
        """The buffer size in bytes: the sum of every slot's stride."""
        return self.region_offset(len(REGIONS))

    def slot_offset(self, core_type, block_id):
        """The buffer offset of the slot of core_type and block_id."""
        for i, r in enumerate(REGIONS):
            if r.core_type == core_type:
                return self.region_offset(i) + int(block_id) * slot_stride(self.capacities[i])
        raise ValueError("core type %r has no region" % (core_type,))

    def slot(self, core_type, block_id):
        """The Slot of core_type and block_id (ValueError outside the layout)."""
        core_type = _CORE_TYPE(core_type)
        if not 0 <= block_id < self.slot_count(core_type):
            raise ValueError("no slot %s/%d in a layout of %d cube slots" % (core_type.name, block_id, self.cube_slots))
        return Slot(core_type, int(block_id), self.slot_offset(core_type, block_id), self.capacity(core_type))

    def slots(self):
        """Every Slot in buffer order."""
        out = []
        for i, r in enumerate(REGIONS):
            start, stride = self.region_offset(i), slot_stride(self.capacities[i])
            for b in range(r.slots_per_cube_slot * self.cube_slots):
                out.append(Slot(r.core_type, b, start + b * stride, self.capacities[i]))
        return out

    def __eq__(self, other):
        return isinstance(other, Layout) and (self.cube_slots, self.capacities) == (other.cube_slots, other.capacities)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self.cube_slots, self.capacities))

    def __repr__(self):
        caps = ", ".join("%s=%d" % (r.core_type.name, c) for r, c in zip(REGIONS, self.capacities))
        return "Layout(cube_slots=%d, %s)" % (self.cube_slots, caps)


# ---------------------------------------------------------------------------
# Descriptor names, as decode formats them.

_PLACEHOLDER = re.compile(r"\{(name|index|desc_id)\}")


def _expand(template, name, index, desc_id):
    values = {"name": name, "index": "%d" % index, "desc_id": "%d" % desc_id}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def namespace(name):
    """The DescNamespace named name ("TaskType"); KeyError if there is none."""
    for ns in NAMESPACES:
        if ns.name == name:
            return ns
    raise KeyError(name)


def lookup_desc(desc_id):
    """The DescNamespace of desc_id and desc_id's index in it; (None, desc_id)
    when no namespace holds it."""
    desc_id = int(desc_id)
    for ns in NAMESPACES:
        if ns.base <= desc_id < ns.base + ns.count:
            return ns, desc_id - ns.base
    return None, desc_id


def desc_schema_name(desc_id, family=None):
    """The display name the schema gives desc_id, or None when it gives none.
    Under family (a KernelFamily, or its name as the CLI's --kernel-family
    takes it: "MegaMoe", "megamoe"), its stage names and task-type table apply
    first: a task type the family does not list has no name. An unknown
    family name is a KeyError listing the families."""
    desc_id = int(desc_id)
    ns, index = lookup_desc(desc_id)
    if isinstance(family, str):
        family = _family_named(family)
    if family is not None:
        if desc_id in family.stages:
            if ns is None:
                return _expand(DESC_UNKNOWN, "", desc_id, desc_id)
            return _expand(ns.display, family.stages[desc_id].name, index, desc_id)
        if ns is not None and ns.enum is not None:
            if index not in family.task_types:
                return None
            return _expand(ns.display, family.task_types[index], index, desc_id)
    if ns is None or index not in ns.names:
        return None
    return _expand(ns.display, ns.names[index], index, desc_id)


def desc_name(desc_id, stages=None, family=None):
    """The display name of desc_id exactly as decode writes it: stages[desc_id]
    when stages (a names file's desc_id -> name map) has it, else the name
    family (a KernelFamily, its name, or None) or the schema gives it, else its
    namespace's fallback ("TaskType_250", "GraphStage_5"), else DESC_UNKNOWN
    ("DescId_<desc_id>")."""
    desc_id = int(desc_id)
    if stages and desc_id in stages:
        return stages[desc_id]
    name = desc_schema_name(desc_id, family)
    if name is not None:
        return name
    ns, index = lookup_desc(desc_id)
    if ns is None:
        return _expand(DESC_UNKNOWN, "", desc_id, desc_id)
    return _expand(ns.fallback, "", index, desc_id)


def kernel_key(name):
    """How kernel names are compared: lower case, without '_' and surrounding
    space."""
    return name.strip().replace("_", "").lower()


def family_for_kernel(kernel_name):
    """The KernelFamily whose kernel_names include kernel_name (compared by
    kernel_key), or None."""
    key = kernel_key(kernel_name)
    for fam in FAMILIES:
        if key and any(kernel_key(k) == key for k in fam.kernel_names):
            return fam
    return None


def _family_named(name):
    """The KernelFamily named name (family() under a name its callers' own
    family= arguments do not shadow)."""
    for fam in FAMILIES:
        if fam.name.lower() == name.strip().lower():
            return fam
    raise KeyError("%r: no such kernel family; the families are %s" % (name, ", ".join(f.name for f in FAMILIES)))


def family(name):
    """The KernelFamily named name, compared case-insensitively; KeyError if
    there is none."""
    return _family_named(name)


def task_stage_prefixed(desc_id):
    """Whether decode prefixes desc_id's name with the task's stage name."""
    ns, index = lookup_desc(desc_id)
    return ns is not None and index in ns.task_stage_prefix


def event_name(desc_id, task_id=0, stage_task_index=0, owner_id=None, stages=None, tasks=None,
               detailed=False, owner_label="Owner", family=None):
    """The trace-event name decode gives a record: desc_name(desc_id, stages),
    prefixed with "<task stage>_" when tasks (task_id -> stage name) names the
    task's stage and the descriptor takes the prefix; with detailed=True,
    "_task<stage_task_index+1>" appended and "<owner_label><owner_id>_"
    prefixed unless owner_id is None or the no-owner value. family (a
    KernelFamily) names desc_ids as desc_name does."""
    name = desc_name(desc_id, stages, family)
    if tasks and task_stage_prefixed(desc_id) and int(task_id) in tasks:
        name = tasks[int(task_id)] + "_" + name
    if not detailed:
        return name
    name += "_task%d" % (int(stage_task_index) + 1)
    if owner_id is None or int(owner_id) == _INVALID_OWNER_ID:
        return name
    return "%s%d_%s" % (owner_label, int(owner_id), name)


# ---------------------------------------------------------------------------
# SoC table.


def normalize_soc_name(name):
    """The form of a SoC name SOCS is matched against: lower case, only
    letters, digits and '_' kept."""
    return "".join(c for c in name.lower() if c == "_" or unicodedata.category(c)[0] in "LN")


def _soc_matches(name, prefix):
    """Whether the normalised SoC name is of the prefix: it starts with it, or
    the prefix is an Ascend one and the name without "ascend" still names it
    ("910_93" is the Ascend 910_93)."""
    if name.startswith(prefix):
        return True
    return prefix.startswith("ascend") and not name.startswith("ascend") and ("ascend" + name).startswith(prefix)


def system_counter_mhz(soc):
    """The system-counter frequency (MHz) of the SoC named soc: the first SOCS
    entry whose prefix normalize_soc_name(soc) matches; ValueError if none."""
    name = normalize_soc_name(soc)
    for s in SOCS:
        if _soc_matches(name, s.prefix):
            return s.mhz
    raise ValueError("unsupported SoC for MegaKernel profiling: %r; supported SoC prefixes: %s"
                     % (soc, ", ".join(sorted(s.prefix for s in SOCS))))


# ---------------------------------------------------------------------------
# Reading a capture.

#: The error codes of CaptureError: exactly validate's error codes.
CODE_BAD_NPY = "bad-npy"
CODE_TRUNCATED = "truncated"
CODE_SHORT_BUFFER = "short-buffer"
CODE_BAD_CAPACITY = "bad-capacity"
CODE_SLOT_IDENTITY = "slot-identity"
CODE_CAPACITY_MISMATCH = "capacity-mismatch"
CODE_RESERVED_NONZERO = "reserved-nonzero"
CODE_COUNT_OVER_CAPACITY = "count-over-capacity"
CODE_NEGATIVE_INTERVAL = "negative-interval"
CODE_NO_RECORDS = "no-records"
CODE_NOT_A_CAPTURE = "not-a-capture"
CODE_LAYOUT_MISMATCH = "layout-mismatch"
CODE_NO_LAYOUT = "no-layout"
CODE_AMBIGUOUS_LAYOUT = "ambiguous-layout"
#: The warning codes of Capture.warnings (found when a capture is opened).
CODE_BYTES_AFTER_LAYOUT = "bytes-after-layout"
CODE_NPY_BYTE_ORDER = "npy-byte-order"


class CaptureError(ValueError):
    """A capture the ABI refuses: the first error decode (and validate) finds.

    code is validate's error code ("slot-identity"), offset the byte offset in
    the file (it includes a .npy header), slot the slot's name ("AIV/17") or
    None, record the record index in the slot or None, name the capture's name.
    """

    def __init__(self, code, offset, message, slot=None, record=None, name=None):
        self.code = code
        self.offset = int(offset)
        self.slot = slot
        self.record = record
        self.name = name
        self.message = message
        ValueError.__init__(self, str(self))

    def __str__(self):
        where = ""
        if self.slot is not None:
            where += self.slot + " "
        if self.record is not None:
            where += "record %d " % self.record
        where += "@%#x" % self.offset
        prefix = self.name + ": " if self.name else ""
        return "%s%s %s: %s" % (prefix, self.code, where, self.message)


class Capture(object):
    """A capture that passed every check decode makes.

    name, format ("raw" or "npy") and base (the file offset of the buffer's
    first byte) describe the source; buffer is the buffer's bytes (uint8,
    zero-copy); layout is the Layout found and layout_source where its
    capacities come from ("headers": found from the capture; "host":
    given). headers holds every slot's header in buffer order (a structured
    array of HEADER_DTYPE), slots every Slot with its header record and a
    zero-copy view of its live records. record_count is the number of live
    records and dropped_count the sum of the live headers' dropped counts.
    layout_how says how the layout was found, in decode's words ("found: 32
    cube slots from the AIV/0 header at @0x9610"); warnings are what opening
    the capture found worth a look, (code, file offset, message) tuples
    (bytes after a .npy array, a big-endian .npy dtype).
    """

    def __init__(self, name, fmt, base, buffer, layout, layout_source, slots):
        self.name = name
        self.format = fmt
        self.base = base
        self.buffer = buffer
        self.layout = layout
        self.layout_source = layout_source
        self.slots = slots
        self.headers = np.array([s.header for s in slots], dtype=HEADER_DTYPE)
        self.record_count = sum(len(s.records) for s in slots)
        self.dropped_count = sum(int(s.header["dropped_count"]) for s in slots if _live(s.header))
        self.layout_how = ""
        self.warnings = []

    @property
    def cube_slots(self):
        """The layout's cube slot count."""
        return self.layout.cube_slots

    @property
    def capacities(self):
        """The record capacity per core type."""
        return dict((r.core_type, c) for r, c in zip(REGIONS, self.layout.capacities))

    def slot(self, core_type, block_id):
        """The Slot of core_type and block_id."""
        core_type = _CORE_TYPE(core_type)
        for s in self.slots:
            if s.core_type == core_type and s.block_id == block_id:
                return s
        raise KeyError("%s/%d" % (core_type.name, block_id))

    def active_slots(self):
        """The slots that hold live records, in buffer order."""
        return [s for s in self.slots if len(s.records)]

    @property
    def anchor(self):
        """The cycle trace time 0 stands for, as decode picks it: the smallest
        nonzero entry_cycle of a slot with records, else the smallest start_cycle."""
        entries = [int(s.header["entry_cycle"]) for s in self.active_slots() if int(s.header["entry_cycle"])]
        if entries:
            return min(entries)
        starts = [int(s.records["start_cycle"].min()) for s in self.active_slots()]
        return min(starts) if starts else 0

    def records(self):
        """Every live record in decode's trace order, (start_cycle, core_type,
        block_id) with ties in slot and record order, as one structured array
        of TRACE_RECORD_DTYPE: the record's fields plus core_type and block_id
        (a copy)."""
        # Slots in (core_type, block_id) order, each slot's records in
        # record order: a stable sort by start_cycle then gives decode's order.
        active = sorted(self.active_slots(), key=lambda s: (int(s.core_type), s.block_id))
        total = sum(len(s.records) for s in active)
        out = np.zeros(total, dtype=TRACE_RECORD_DTYPE)
        if total == 0:
            return out
        records = np.concatenate([s.records for s in active])
        for field in TRACE_RECORD_DTYPE.names:
            if field in RECORD_DTYPE.names:
                out[field] = records[field]
        counts = [len(s.records) for s in active]
        out["core_type"] = np.repeat([int(s.core_type) for s in active], counts)
        out["block_id"] = np.repeat([s.block_id for s in active], counts)
        start = np.ascontiguousarray(out["start_cycle"])
        if total > 1 and not (start[1:] >= start[:-1]).all():
            # Moving whole records as opaque items is several times faster
            # than taking a structured array.
            item = np.dtype((np.void, TRACE_RECORD_DTYPE.itemsize))
            out = out.view(item)[np.argsort(start, kind="stable")].view(TRACE_RECORD_DTYPE)
        return out

    def __repr__(self):
        return "Capture(%r, %s, %r, %d records)" % (self.name, self.format, self.layout, self.record_count)


_NPY_MAGIC = b"\x93NUMPY"
_MAX_NPY_HEADER = 1 << 20


class _PyParser(object):
    # The Python literal subset NumPy writes in .npy headers, parsed exactly as
    # the Go reader parses it (capture/npy.go), so both refuse the same headers.

    def __init__(self, s):
        self.s = s
        self.i = 0

    def error(self, message):
        return ValueError("column %d: %s" % (self.i + 1, message))

    def space(self):
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def value(self, depth):
        if depth > 16:
            raise self.error("nested too deeply")
        self.space()
        s = self.s
        if self.i >= len(s):
            raise self.error("unexpected end")
        c = s[self.i]
        if c == "{":
            self.i += 1
            d = {}
            while True:
                self.space()
                if self.i < len(s) and s[self.i] == "}":
                    self.i += 1
                    return d
                k = self.value(depth + 1)
                if not isinstance(k, str):
                    raise self.error("dict key is not a string")
                self.space()
                if self.i >= len(s) or s[self.i] != ":":
                    raise self.error("expected ':'")
                self.i += 1
                d[k] = self.value(depth + 1)
                self.sep("}")
        if c in "([":
            end = ")" if c == "(" else "]"
            self.i += 1
            items = []
            while True:
                self.space()
                if self.i < len(s) and s[self.i] == end:
                    self.i += 1
                    return items
                items.append(self.value(depth + 1))
                if len(items) > 1 << 16:
                    raise self.error("too many items")
                self.sep(end)
        if c in "'\"":
            j = s.find(c, self.i + 1)
            if j < 0:
                raise self.error("unterminated string")
            v = s[self.i + 1:j]
            self.i = j + 1
            return v
        if c == "-" or "0" <= c <= "9":
            j = self.i + 1
            while j < len(s) and "0" <= s[j] <= "9":
                j += 1
            text = s[self.i:j]
            if not re.match(r"^[+-]?[0-9]+$", text) or not -(1 << 63) <= int(text) < 1 << 63:
                raise self.error("bad integer %r" % text)
            self.i = j
            if j < len(s) and s[j] == "L":
                self.i += 1
            return int(text)
        for word, v in (("True", True), ("False", False), ("None", None)):
            if s.startswith(word, self.i):
                self.i += len(word)
                return v
        raise self.error("unexpected %r" % c)

    def sep(self, end):
        self.space()
        if self.i < len(self.s) and self.s[self.i] == ",":
            self.i += 1
            return
        if self.i < len(self.s) and self.s[self.i] == end:
            return
        raise self.error("expected ',' or %r" % end)


def _is_int(v):
    return type(v) is int


def _go_int32(text):
    if not re.match(r"^[+-]?[0-9]+$", text):
        return None
    n = int(text)
    return n if -(1 << 31) <= n < 1 << 31 else None


def _type_size(d, s):
    kind, digits = s[0], s[1:]
    if "[" in digits:  # datetime units: M8[ns]
        digits = digits[:digits.index("[")]
    if kind == "O":
        raise ValueError("object dtype %r holds pointers, not the buffer's bytes" % d)
    if kind == "?" and digits == "":
        return 1
    if kind not in "biufcVSaUMm?":
        raise ValueError("unsupported dtype %r" % d)
    n = _go_int32(digits)
    if n is None or n <= 0:
        raise ValueError("unsupported dtype %r" % d)
    return n * 4 if kind == "U" else n


def _dtype_size(d):
    # (byte size of one element, big-endian?) of a .npy descr, as
    # capture/npy.go computes them.
    if isinstance(d, str):
        s = d.lstrip("<>|=")
        if not s:
            raise ValueError("empty dtype")
        n = _type_size(d, s)
        return n, n > 1 and d.startswith(">") and s[0] not in "SaV"
    if isinstance(d, list):
        total, any_big = 0, False
        for f in d:
            if not isinstance(f, list) or not 2 <= len(f) <= 3:
                raise ValueError("unsupported structured dtype %r" % (d,))
            size, big = _dtype_size(f[1])
            any_big = any_big or big
            if len(f) == 3:
                if not isinstance(f[2], list):
                    raise ValueError("unsupported structured dtype %r" % (d,))
                for dim in f[2]:
                    if not _is_int(dim) or dim < 0 or dim > 1 << 20:
                        raise ValueError("unsupported structured dtype %r" % (d,))
                    size *= dim
                    if size > 1 << 30:
                        raise ValueError("structured dtype too large")
            total += size
            if total > 1 << 30:
                raise ValueError("structured dtype too large")
        if total == 0:
            raise ValueError("empty structured dtype")
        return total, any_big
    raise ValueError("missing or unsupported descr %r" % (d,))


def _py_repr(v):
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, str):
        return "'" + v + "'"
    return "%s" % (v,)


def _npy_header(data, name):
    # (payload offset, payload bytes, big-endian?, descr) of a .npy file's
    # bytes, or CaptureError with the code and offset the Go reader gives.
    size = len(data)
    err_off = [0]

    def bad(message):
        return CaptureError(CODE_BAD_NPY, err_off[0], message, name=name)

    pre = bytes(data[:12])
    if len(pre) < 10:
        raise bad("truncated .npy header: %d bytes" % size)
    major = pre[6]
    if major == 1:
        hlen, start = pre[8] | pre[9] << 8, 10
    elif major in (2, 3):
        if len(pre) < 12:
            raise bad("truncated .npy header: %d bytes" % size)
        hlen, start = int.from_bytes(pre[8:12], "little"), 12
    else:
        err_off[0] = 6
        raise bad("unsupported .npy format version %d.%d" % (major, pre[7]))
    err_off[0] = 8
    if hlen > _MAX_NPY_HEADER:
        raise bad(".npy header length %d exceeds %d bytes" % (hlen, _MAX_NPY_HEADER))
    if start + hlen > size:
        raise bad("truncated .npy header: it declares %d bytes, the file has %d after the preamble" % (hlen, size - start))
    text = bytes(data[start:start + hlen]).decode("latin-1").rstrip(" \n\x00")
    err_off[0] = start
    data_off = start + hlen
    try:
        p = _PyParser(text)
        header = p.value(0)
        p.space()
        if p.i != len(p.s):
            raise ValueError("unexpected %r at column %d" % (p.s[p.i:p.i + 10], p.i + 1))
        if not isinstance(header, dict):
            raise ValueError("not a dict")
        item_size, big = _dtype_size(header.get("descr"))
        fortran = header.get("fortran_order", _MISSING)
        if not isinstance(fortran, bool):
            raise ValueError("fortran_order is %s, not True or False"
                             % ("missing" if fortran is _MISSING else _py_repr(fortran)))
        shape = header.get("shape")
        if not isinstance(shape, list):
            raise ValueError("shape is not a tuple")
    except ValueError as e:
        raise bad("bad .npy header: %s" % e)
    count, big_dims, empty = 1, 0, False
    for dim in shape:
        if not _is_int(dim) or dim < 0:
            raise bad("bad .npy header: shape %r" % (shape,))
        empty = empty or dim == 0
        if dim > 1:
            big_dims += 1
        count *= dim
    if fortran and big_dims > 1:
        raise bad("Fortran-order array of shape %r: its bytes are not the buffer in order; "
                  "save it with np.save(np.ascontiguousarray(a))" % (tuple(shape),))
    payload = 0 if empty else min(count * item_size, (1 << 64) - 1)
    return data_off, payload, big, "%s" % (header.get("descr"),)


_MISSING = object()


def _source_bytes(source):
    # (name, uint8 array of the whole source): the bytes a file of it holds.
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise ValueError("%s: not a regular file" % path)
            if st.st_size == 0:
                return path, np.zeros(0, dtype=np.uint8)
            m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return path, np.frombuffer(m, dtype=np.uint8)
    if isinstance(source, (bytes, bytearray, memoryview)):
        view = memoryview(source)
        if not view.c_contiguous:
            raise ValueError("capture memoryview is not C-contiguous")
        return "<bytes>", np.frombuffer(view.cast("B") if view.ndim != 1 or view.format != "B" else view,
                                        dtype=np.uint8)
    if not isinstance(source, np.ndarray) and hasattr(source, "numpy"):
        source = source.numpy()
    if isinstance(source, np.ndarray):
        if source.dtype.hasobject:
            raise ValueError("capture array of dtype %s holds pointers, not the buffer's bytes" % source.dtype)
        if not source.flags.c_contiguous:
            raise ValueError("capture array is not C-contiguous; pass np.ascontiguousarray(a)")
        return "<array>", source.reshape(-1).view(np.uint8)
    raise TypeError("read_capture: want a path, bytes, memoryview, NumPy array or tensor, got %s"
                    % type(source).__name__)


_SNIFF_SIZE = 512
_UTF8_BOM = b"\xef\xbb\xbf"
_SPACE = b" \t\r\n"
# The magic bytes of the kinds told by them, in sniff.go's order.
_MAGICS = (
    (b"\x1f\x8b\x08", "gzip-compressed data (a compressed trace?)"),
    (b"PK\x03\x04", "a zip archive (torch.save? save the tensor with numpy().tofile or np.save)"),
    (b"PK\x05\x06", "a zip archive (torch.save? save the tensor with numpy().tofile or np.save)"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"%PDF", "a PDF document"),
    (b"\x7fELF", "an ELF program or library"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
    (b"BZh", "bzip2-compressed data"),
    (b"\xfd7zXZ\x00", "xz-compressed data"),
)


def _file_kind(data):
    # What a file that cannot be a capture is ("a PNG image", "JSON (a
    # trace, ...)"), or None (package sniff's Head, less .npy, told
    # before): text never is one, since every header holds zero bytes; a
    # byte-order mark and any amount of whitespace may open text; the
    # byte-order marks and magic bytes name a file only when its first 64
    # bytes are not a header slot 0 could hold.
    if len(data) == 0:
        return "empty (0 bytes)"
    head = bytes(data[:_SNIFF_SIZE])
    kind, blank = _classify(head)
    if blank and len(head) == _SNIFF_SIZE:
        # Whitespace to the end of the sample: look at the text after it.
        i = _SNIFF_SIZE
        while i < len(data) and data[i] in _SPACE:
            i += 1
        if i < len(data):
            rest = bytes(data[i:i + _SNIFF_SIZE])
            if head.startswith(_UTF8_BOM):
                rest = _UTF8_BOM + rest
            kind, _ = _classify(rest)
    return kind


def _classify(head):
    # (what head is or None, whether it is blank text): sniff.go's classify.
    if head.startswith(b"\x93NUMPY"):
        return "a NumPy .npy file", False
    if len(head) >= HEADER_SIZE:
        # Before any byte-order mark: AIC/0's entry cycle may end in
        # 0xfeff, and text holds no zero bytes.
        def u32(off):
            return struct.unpack_from("<I", head, off)[0]
        core_type = u32(_HEADER_OFFSET["core_type"])
        if (u32(_HEADER_OFFSET["reserved"]) == 0 and u32(_HEADER_OFFSET["block_id"]) == 0
                and core_type in (0, int(REGIONS[0].core_type))):
            return None, False
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32 text (save it as UTF-8)", False
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16 text (save it as UTF-8)", False
    kind = _text_kind(head)
    if kind is not None:
        return kind, kind == "blank text"
    for magic, what in _MAGICS:
        if head.startswith(magic):
            return what, False
    if _perfetto_packet(head):
        return "a Perfetto protobuf trace", False
    return None, False


def _uvarint(b, i):
    # (value, next index) of the varint at b[i:]; (None, 0) when b ends
    # first, (None, -1) when it overflows 64 bits (encoding/binary.Uvarint).
    x, s = 0, 0
    for k in range(i, len(b)):
        if k - i == 10:
            return None, -1
        c = b[k]
        if c < 0x80:
            if k - i == 9 and c > 1:
                return None, -1
            return x | c << s, k + 1
        x |= (c & 0x7f) << s
        s += 7
    return None, 0


def _perfetto_packet(head):
    # Whether head starts as a Perfetto trace (sniff.go's perfettoPacket).
    if len(head) < 2 or head[0] != 0x0A:
        return False
    n, i = _uvarint(head, 1)
    if i <= 0 or n == 0:
        return False
    end = len(head)
    cut = end - i < n
    if not cut:
        end = i + n
    fields = 0
    while i < end:
        tag, j = _uvarint(head[:end], i)
        if j < 0 or j > 0 and tag >> 3 == 0:
            return False
        if j == 0:
            break
        i = j
        wire = tag & 7
        if wire == 0:
            _, j = _uvarint(head[:end], i)
            if j < 0:
                return False
            if j == 0:
                break
            skip = j - i
        elif wire == 1:
            skip = 8
        elif wire == 5:
            skip = 4
        elif wire == 2:
            l, j = _uvarint(head[:end], i)
            if j < 0:
                return False
            if j == 0 or l > end - j:
                break
            skip = j - i + l
        else:
            return False
        if skip > end - i:
            break
        i += skip
        fields += 1
    return fields > 0 and (i == end or cut)


def _text_kind(sample):
    # What a sample that is text looks like ("JSON (a trace, ...)", "YAML
    # (...)", "HTML or XML (...)", "text (YAML or Markdown)", "text",
    # "blank text"), or None when it is not text (sniff.go's text): after
    # a UTF-8 byte-order mark; JSON may hold bytes that are not UTF-8 or
    # not printable, never a control character.
    if not sample:
        return None
    b = sample[len(_UTF8_BOM):] if sample.startswith(_UTF8_BOM) else sample
    if not b:
        return "blank text"
    text = None
    for cut in range(4 if len(sample) >= _SNIFF_SIZE else 1):
        try:
            text = b[:len(b) - cut].decode("utf-8")
            break
        except UnicodeDecodeError:
            continue
    printable = text is not None and all(
        c in "\n\r\t" or c == " " or unicodedata.category(c)[0] in "LMNPS" for c in text)
    if not printable:
        start = b.lstrip(_SPACE)
        if not start or start[:1] not in (b"{", b"[") or any(c < 0x20 and c not in b"\t\n\r" for c in b):
            return None
        text = b.decode("utf-8", "replace")
    t = text.strip()
    if not t:
        return "blank text"
    if t[0] in "{[":
        return "JSON (a trace, a schedule or a names file?)"
    if t[0] == "<":
        return "HTML or XML (a report.html?)"
    if t.startswith("---") or ":" in t.split("\n", 1)[0]:
        return "YAML (a schedule, a names file or a manifest?)"
    if t[0] == "#":
        return "text (YAML or Markdown)"
    return "text"


def _open(source, name):
    # (name, format, base, buffer, warnings) of a source: the buffer is the
    # .npy payload or the whole raw bytes, told apart by the magic bytes.
    src_name, data = _source_bytes(source)
    name = src_name if name is None else name
    warnings = []
    if len(data) >= len(_NPY_MAGIC) and bytes(data[:len(_NPY_MAGIC)]) == _NPY_MAGIC:
        data_off, payload, big, descr = _npy_header(data, name)
        present = len(data) - data_off
        if payload > present:
            raise CaptureError(CODE_TRUNCATED, len(data),
                               "truncated .npy file: its header declares %d payload bytes, %d are present (%d missing)"
                               % (payload, present, payload - present), name=name)
        if present > payload:
            warnings.append((CODE_BYTES_AFTER_LAYOUT, data_off + payload,
                             "%d bytes follow the .npy array (its header declares %d payload bytes); they are not "
                             "part of the buffer and are ignored" % (present - payload, payload)))
        if big:
            warnings.append((CODE_NPY_BYTE_ORDER, 8,
                             ".npy dtype %s is big-endian; the buffer's bytes are read as stored (little-endian, as "
                             "the device wrote them), not as the dtype says" % descr))
        return name, "npy", data_off, data[data_off:data_off + payload], warnings
    kind = _file_kind(data)
    if kind is not None:
        raise CaptureError(CODE_NOT_A_CAPTURE, 0,
                           "not a capture: the file is %s; a capture is the profiling buffer's bytes "
                           "(tensor.numpy().tofile()) or a .npy file (np.save)" % kind, name=name)
    return name, "raw", 0, data, warnings


def _header_at(buf, off):
    return buf[off:off + HEADER_SIZE].view(HEADER_DTYPE)[0]


def _live(h):
    # A header with every non-padding field zero belongs to a core that never
    # entered the kernel.
    return any(int(h[f]) for f in _HEADER_VALUE_FIELDS)


#: The largest cube slot count the layout search tries when none is given
#: (captures with more decode when the count is given).
MAX_FOUND_CUBE_SLOTS = 4096
_ZERO_SCAN_BUDGET = 256 << 20
_SCAN_CHUNK = 64 << 10
_MAX_LISTED = 4

_HEADER_FIELDS_BY_OFFSET = tuple(f[0] for f in sorted(_HEADER_STRUCT_FIELDS, key=lambda f: f[1]) if f[3] != "pad")
_HeaderValues = collections.namedtuple("_HeaderValues", _HEADER_FIELDS_BY_OFFSET)
_HEADER_STRUCT = struct.Struct(HEADER_FORMAT)
_ZERO_HEADER = _HeaderValues._make([0] * len(_HEADER_FIELDS_BY_OFFSET))

# Where a part of a layout came from (validate's "source").
FROM_HEADERS, FROM_SIZE, FROM_HOST = "headers", "size", "host"


class _Evidence(object):
    __slots__ = ("src", "core_type", "block", "off", "derived")

    def __init__(self, src, core_type=0, block=0, off=0, derived=False):
        self.src, self.core_type, self.block, self.off, self.derived = src, core_type, block, off, derived

    def slot(self):
        return _slot_name(self.core_type, self.block)


class _Candidate(object):
    __slots__ = ("cube", "caps", "layout", "size", "cube_from", "sources", "mismatches", "first")

    def __init__(self, cube, caps, cube_from, sources):
        self.cube, self.caps, self.cube_from, self.sources = cube, tuple(caps), cube_from, sources
        self.layout = Layout(cube, caps)
        self.size = self.layout.size
        self.mismatches, self.first = 0, ""


class _Reject(object):
    # Why the walk ruled a cube slot count out: a message format and its
    # arguments, formatted only for the no-layout message. past_end is the
    # index of the region that would start past the buffer's end, when
    # that is why and no capacity before it was derived from where a
    # header sits; else None.
    __slots__ = ("key", "past_end")

    def __init__(self, fmt, *args):
        self.key = (fmt,) + args
        self.past_end = None

    def __str__(self):
        return self.key[0] % self.key[1:] if len(self.key) > 1 else self.key[0]


# Plain-int views of REGIONS for the search, which runs thousands of times
# per capture (IntEnum comparisons are slow).
_REGION_INDEX = dict((int(r.core_type), i) for i, r in enumerate(REGIONS))
_REGION_TYPE = [int(r.core_type) for r in REGIONS]
_REGION_NAME = [r.core_type.name for r in REGIONS]
_REGION_SLOTS = [r.slots_per_cube_slot for r in REGIONS]


def _region_index(core_type):
    return _REGION_INDEX.get(int(core_type), -1)


def _slot_name(core_type, block):
    i = _REGION_INDEX.get(int(core_type), -1)
    if i < 0:
        return "core_type=%d block_id=%d" % (core_type, block)
    return "%s/%d" % (_REGION_NAME[i], block)


def _paren(layout):
    return "(%d cube slots, %s)" % (layout.cube_slots, ", ".join(
        "%s capacity %d" % (r.core_type.name, c) for r, c in zip(REGIONS, layout.capacities)))


def _slot_at(layout, off):
    # The Slot of layout whose bytes hold buffer offset off, or None.
    for i, r in enumerate(REGIONS):
        n = r.slots_per_cube_slot * layout.cube_slots
        if n == 0:
            continue
        start, stride = layout.region_offset(i), slot_stride(layout.capacities[i])
        if start <= off < start + n * stride:
            b = (off - start) // stride
            return Slot(r.core_type, b, start + b * stride, layout.capacities[i])
    return None


def _exact_stride(nbytes, slots):
    if slots == 0 or nbytes % slots:
        return None
    return nbytes // slots


def _capacity_of_stride(stride):
    if stride is None or stride < HEADER_SIZE or (stride - HEADER_SIZE) % RECORD_SIZE:
        return None
    k = (stride - HEADER_SIZE) // RECORD_SIZE
    try:
        check_capacity(k)
    except LayoutError:
        return None
    return k


def _capacity_ok(capacity):
    return capacity % _CAPACITY_ALIGNMENT == 0 and capacity <= _MAX_RECORDS_PER_CORE


class _RegionQuery(object):
    # What a region rule looks at: region i of a walk of cube cube slots,
    # starting at buffer offset start (package capture's regionQuery).
    __slots__ = ("i", "t", "name", "first", "n", "start", "cube", "cube_given", "given")

    def __init__(self, cube, cube_given, given):
        self.cube, self.cube_given, self.given, self.start = cube, cube_given, given, 0

    def at(self, i):
        self.i, self.t, self.name = i, _REGION_TYPE[i], _REGION_NAME[i]
        self.first, self.n = self.name + "/0", _REGION_SLOTS[i] * self.cube


class _Finder(object):
    # The layout search of cycleabi (package capture/internal/layoutsearch:
    # search.go, rules.go and decide.go), rule for rule and by the same names, so that Python finds the layout Go finds and refuses
    # what Go refuses, at the same offsets.

    def __init__(self, buf, base, name):
        self.buf, self.base, self.name, self.size = buf, base, name, len(buf)
        self.runs = []  # [from, next, found, header]: header fields zero in [from, next)
        self.scanned = 0
        self.all_zero_known = None
        # Rule 2's reading past a damaged first header: a second pass, when
        # the strict one found no candidate.
        self.damaged = False

    def file(self, off):
        return self.base + off

    def header(self, off):
        if off + HEADER_SIZE > self.size:
            return _ZERO_HEADER
        return _HeaderValues._make(_HEADER_STRUCT.unpack_from(self.buf, off))

    def first_live(self, start):
        # (offset, header, state) of the first 64-byte block at or after
        # start whose header fields are not all zero; state "found", "none"
        # or "budget" (the zero scan's budget ran out).
        for run in self.runs:
            if run[0] <= start <= run[1]:
                return (run[1], run[3], "found") if run[2] else (0, None, "none")
        at = start
        while at + HEADER_SIZE <= self.size:
            if self.scanned >= _ZERO_SCAN_BUDGET:
                return 0, None, "budget"
            n = min(_SCAN_CHUNK, (self.size - at) // HEADER_SIZE * HEADER_SIZE)
            self.scanned += n
            blocks = self.buf[at:at + n].view(HEADER_DTYPE)
            live = np.zeros(len(blocks), dtype=bool)
            for f in _HEADER_VALUE_FIELDS:
                live |= blocks[f] != 0
            if live.any():
                found = at + HEADER_SIZE * int(np.argmax(live))
                h = self.header(found)
                self.runs.append([start, found, True, h])
                return found, h, "found"
            at += n
        self.runs.append([start, self.size, False, None])
        return 0, None, "none"

    def all_zero(self):
        if self.all_zero_known is None:
            self.all_zero_known = not any(self.header(0)) and self.first_live(HEADER_SIZE)[2] == "none"
        return self.all_zero_known

    def bad_capacity(self, h, slot, off):
        return CaptureError(CODE_BAD_CAPACITY, self.file(off) + _HEADER_OFFSET["record_capacity"],
                            "record_capacity=%d, expected a multiple of %d at most %d"
                            % (h.record_capacity, _CAPACITY_ALIGNMENT, _MAX_RECORDS_PER_CORE), slot=slot, name=self.name)

    def walk(self, cube, cube_given, given):
        # The region rules for each region in buffer order (region picks the
        # rule), then rule_pinned and rule_makes_layout: a _Candidate, or a
        # _Reject saying why there is none, or the bad-capacity CaptureError
        # that stopped it (package capture's walk).
        caps, sources, cube_from, derived = [0] * len(REGIONS), [], None, False
        q = _RegionQuery(cube, cube_given, given)
        for i in range(len(REGIONS)):
            q.at(i)
            st = self.region(q)
            if not isinstance(st, tuple):
                if isinstance(st, _Reject) and derived:
                    st.past_end = None
                return st
            capacity, ev = st
            sources.append(_Evidence(FROM_HOST) if given is not None else ev)
            # Region 0 starts at 0 whatever C is; a later region's header, a
            # capacity derived from one, or the size rule depend on C.
            if cube_from is None and ev is not None and (
                    ev.src == FROM_SIZE or ev.src == FROM_HEADERS and (i > 0 or ev.derived)):
                cube_from = _Evidence(ev.src, ev.core_type, ev.block, ev.off)
            derived = derived or ev is not None and ev.derived
            caps[i] = capacity
            q.start += q.n * slot_stride(capacity)
        cube_from = self.rule_pinned(cube_from, cube_given, given, q.start)
        if isinstance(cube_from, _Reject):
            return cube_from
        return self.rule_makes_layout(cube, caps, cube_from, sources)

    # The region rules, as layoutsearch's rules.go has them: each returns
    # (capacity, evidence), a _Reject, or a CaptureError.

    def region(self, q):
        if q.start + HEADER_SIZE > self.size:
            return self.rule_past_end(q)
        h = self.header(q.start)
        if not any(h):
            return self.rule_unused_start(q)
        if h.core_type == q.t and h.block_id == 0 or q.i == 0 or q.cube_given:
            return self.rule_live_start(q, h)
        return self.rule_damaged_start(q, h)

    def rule_past_end(self, q):
        rej = _Reject("%s would start past the end of the buffer" % q.first)
        rej.past_end = q.i
        return rej

    def rule_live_start(self, q, h):
        ev = _Evidence(FROM_HEADERS, q.t, 0, q.start)
        if q.given is not None:
            return q.given[q.i], ev
        if not _capacity_ok(h.record_capacity):
            return self.bad_capacity(h, q.first, q.start)
        return h.record_capacity, ev

    def rule_damaged_start(self, q, h):
        if self.damaged:
            found = self.past_damaged(q.start, q.n, h, q.given, q.i)
            if found is not None:
                capacity, at, block = found
                return capacity, _Evidence(FROM_HEADERS, q.t, block, at)
        return _Reject("the header where %s would start, @%#x, names %s"
                       % (q.first, self.file(q.start), _slot_name(h.core_type, h.block_id)))

    def rule_unused_start(self, q):
        at, hx, state = self.first_live(q.start + HEADER_SIZE)
        if state == "budget":
            return _Reject("%s is unused and no live header follows within %d MiB" % (q.first, _ZERO_SCAN_BUDGET >> 20))
        if state == "none":
            return self.rule_zero_tail(q)
        j = _region_index(hx.core_type)
        k = hx.record_capacity
        if q.given is not None and j >= 0:
            k = q.given[j]
        elif not _capacity_ok(k):
            return _Reject("%s is unused and the first live header after it, @%#x, states capacity %d, "
                           "which no layout has" % (q.first, self.file(at), hx.record_capacity))
        if j == q.i:
            return self.rule_same_region(q, at, hx, k)
        if j == q.i + 1:
            return self.rule_next_region(q, at, hx, k)
        if q.given is not None and j > q.i + 1:
            return self.rule_later_region(q, at, hx, k, j)
        return _Reject("%s is unused and the first live header after it, @%#x, names %s"
                       % (q.first, self.file(at), _slot_name(hx.core_type, hx.block_id)))

    def misplaced(self, q, at, hx):
        return _Reject("%s is unused and the first live header after it, @%#x, names %s, which "
                       "this layout does not put there" % (q.first, self.file(at), _slot_name(hx.core_type, hx.block_id)))

    def rule_same_region(self, q, at, hx, k):
        if hx.block_id == 0 or hx.block_id >= q.n or q.start + hx.block_id * slot_stride(k) != at:
            return self.misplaced(q, at, hx)
        return k, _Evidence(FROM_HEADERS, hx.core_type, hx.block_id, at)

    def rule_next_region(self, q, at, hx, k):
        back = hx.block_id * slot_stride(k)
        span = at - q.start
        if hx.block_id >= _REGION_SLOTS[q.i + 1] * q.cube or back > span:
            return self.misplaced(q, at, hx)
        if q.given is not None:
            v = q.given[q.i] if span - back == q.n * slot_stride(q.given[q.i]) else None
        else:
            v = _capacity_of_stride(_exact_stride(span - back, q.n))
        if v is None:
            return _Reject("every %s header is zero, and no %s capacity puts %s at @%#x"
                           % (q.name, q.name, _slot_name(hx.core_type, hx.block_id), self.file(at)))
        return v, _Evidence(FROM_HEADERS, hx.core_type, hx.block_id, at, derived=True)

    def rule_later_region(self, q, at, hx, k, j):
        # Given capacities place a header any number of regions on (every
        # region between is all zero): each region before j takes its given
        # slots' strides.
        place = q.start
        for r in range(q.i, j):
            place += _REGION_SLOTS[r] * q.cube * slot_stride(q.given[r])
        if hx.block_id >= _REGION_SLOTS[j] * q.cube or place + hx.block_id * slot_stride(k) != at:
            return self.misplaced(q, at, hx)
        return q.given[q.i], _Evidence(FROM_HEADERS, hx.core_type, hx.block_id, at)

    def rule_zero_tail(self, q):
        if q.given is not None:
            return q.given[q.i], None
        if q.i != len(REGIONS) - 1:
            return _Reject("every header from %s on is zero, so the capacities of its region "
                           "and the next cannot be read" % q.first)
        v = _capacity_of_stride(_exact_stride(self.size - q.start, q.n))
        if v is None:
            return _Reject("every %s header is zero and no %s capacity makes the layout end with "
                           "the buffer" % (q.name, q.name))
        return v, _Evidence(FROM_SIZE)

    def rule_pinned(self, cube_from, cube_given, given, end):
        # Given capacities and nothing live past the first region: the count
        # whose layout ends exactly with the buffer (end is the layout's size).
        if cube_from is not None or cube_given:
            return cube_from
        if given is not None and end == self.size:
            return _Evidence(FROM_SIZE)
        return _Reject("no header past the first region is live, so nothing fixes the cube slot count")

    def rule_makes_layout(self, cube, caps, cube_from, sources):
        try:
            return _Candidate(cube, caps, cube_from, sources)
        except LayoutError:
            return _Reject("its capacities make no layout")

    def past_damaged(self, start, n, h, given, i):
        # A region whose slot-0 header names another slot: past the records
        # that header counts, the first live header must name a later slot b
        # of the same region with an aligned capacity K, at start +
        # b*stride(K). Returns (K or the given capacity, where that header
        # is, b), or None; verify then counts the damaged header against the
        # candidate.
        skip = start + HEADER_SIZE + h.record_count * RECORD_SIZE
        skip = (skip + HEADER_SIZE - 1) // HEADER_SIZE * HEADER_SIZE
        if skip + HEADER_SIZE > self.size:
            return None
        at, hx, state = self.first_live(skip)
        if state != "found" or hx.core_type != _REGION_TYPE[i] or hx.block_id == 0 or hx.block_id >= n:
            return None
        k = hx.record_capacity
        if given is not None:
            k = given[i]
        elif not _capacity_ok(k):
            return None
        if start + hx.block_id * slot_stride(k) != at:
            return None
        return k, at, hx.block_id

    def rule_cross_check(self, cands):
        # Holds every candidate to the live headers the others were found
        # from: under a candidate, such a header must sit where a slot's
        # header is (verify checked those), past the layout, or among the
        # records a live slot wrote; an unused slot, and the room past a
        # slot's record_count, hold nothing.
        seen = set()
        for other in cands:
            for e in [other.cube_from] + other.sources:
                if e.src != FROM_HEADERS or e.off in seen:
                    continue
                seen.add(e.off)
                for cd in cands:
                    slot = _slot_at(cd.layout, e.off)
                    if slot is None or e.off == slot.offset:
                        continue
                    h = self.header(slot.offset)
                    written = min(h.record_count, slot.capacity)
                    if not any(h) or e.off >= slot.record_offset(written):
                        if cd.mismatches == 0:
                            cd.first = "no live header at @%#x (%s), which falls in room %s never wrote" % (
                                self.file(e.off), e.slot(), slot.name)
                        cd.mismatches += 1

    def rule_slot_headers(self, cd):
        # Every slot header of the candidate's layout the buffer holds must be
        # zero or name its own slot and capacity; the first live header after
        # the layout must not be a slot of the last region it is too short for.
        layout = cd.layout
        for i, r in enumerate(REGIONS):
            start, stride = layout.region_offset(i), slot_stride(layout.capacities[i])
            count = r.slots_per_cube_slot * layout.cube_slots
            if start + HEADER_SIZE > self.size:
                break
            count = min(count, (self.size - start - HEADER_SIZE) // stride + 1)
            hs = np.ndarray(shape=(count,), dtype=HEADER_DTYPE, buffer=self.buf, offset=start, strides=(stride,))
            live = np.zeros(count, dtype=bool)
            for f in _HEADER_VALUE_FIELDS:
                live |= hs[f] != 0
            bad = live & ((hs["core_type"] != int(r.core_type)) | (hs["block_id"] != np.arange(count))
                          | (hs["record_capacity"] != layout.capacities[i]))
            nbad = int(np.count_nonzero(bad))
            if nbad:
                if cd.mismatches == 0:
                    b = int(np.argmax(bad))
                    h = self.header(start + b * stride)
                    cd.first = ("the header at @%#x to name %s/%d with capacity %d (it names %s with capacity %d)"
                                % (self.file(start + b * stride), r.core_type.name, b, layout.capacities[i],
                                   _slot_name(h.core_type, h.block_id), h.record_capacity))
                cd.mismatches += nbad
        end = cd.size
        if end + HEADER_SIZE <= self.size:
            last = REGIONS[-1].core_type
            n, stride = layout.slot_count(last), slot_stride(layout.capacity(last))
            at, h, state = self.first_live(end)
            if state == "found" and h.core_type == last and h.block_id >= n and end + (h.block_id - n) * stride == at:
                if cd.mismatches == 0:
                    cd.first = "room for %s, whose header follows the layout at @%#x" % (
                        _slot_name(h.core_type, h.block_id), self.file(at))
                cd.mismatches += 1

    def search(self, cube, given):
        s = self.search_pass(cube, given)
        if not s["cands"] and not s["problems"]:
            self.damaged = True
            again = self.search_pass(cube, given)
            if again["cands"]:
                s = again
            self.damaged = False
        return s

    def rule_cube_range(self, cube):
        # The given count only, or from the minimum up to the smaller of
        # MAX_FOUND_CUBE_SLOTS and the most whose slot headers alone the
        # buffer holds.
        if cube:
            return cube, cube
        per_cube = sum(r.slots_per_cube_slot for r in REGIONS) * HEADER_SIZE
        return _MIN_CUBE_SLOTS, min(MAX_FOUND_CUBE_SLOTS, self.size // per_cube)

    def search_pass(self, cube, given):
        # One pass of the search over the cube slot counts: the driver of
        # the rules.
        lo, hi = self.rule_cube_range(cube)
        result = {"cands": [], "rejects": [], "problems": [], "first": lo, "tried": 0}
        c = lo - 1
        while c < hi:
            c += 1
            result["tried"] += 1
            cd = self.walk(c, bool(cube), given)
            if isinstance(cd, _Reject):
                last = c
                if cd.past_end is not None and (given is not None or cd.past_end <= 1):
                    # rule_past_end, when the regions before it have capacities that do not
                    # depend on the count (given, or the first region's, read
                    # where it starts whatever C is): every larger count
                    # starts that region later still.
                    result["tried"] += hi - c
                    last = hi
                rejects = result["rejects"]
                if rejects and rejects[-1][2].key == cd.key and rejects[-1][1] == c - 1:
                    rejects[-1][1] = last
                elif len(rejects) <= _MAX_LISTED:
                    rejects.append([c, last, cd])
                c = last
                continue
            if isinstance(cd, CaptureError):
                if all(p.offset != cd.offset for p in result["problems"]):
                    result["problems"].append(cd)
                continue
            if cube:
                cd.cube_from = _Evidence(FROM_HOST)
            self.rule_slot_headers(cd)
            result["cands"].append(cd)
        if len(result["cands"]) > 1:
            self.rule_cross_check(result["cands"])
        return result

    def fits(self, cd):
        return cd.mismatches == 0 and cd.size <= self.size

    def how(self, cd, capacities_given):
        # How a candidate was found, in decode's words.
        e = cd.cube_from
        if e.src == FROM_HOST:
            parts = ["%d cube slots given" % cd.cube]
        elif e.src == FROM_SIZE:
            parts = ["found: %d cube slots from the file size" % cd.cube]
        else:
            parts = ["found: %d cube slots from the %s header at @%#x" % (cd.cube, e.slot(), self.file(e.off))]
        if capacities_given:
            parts.append("capacities given")
        else:
            for i, e in enumerate(cd.sources):
                t = REGIONS[i].core_type.name
                if e.src == FROM_SIZE:
                    parts.append("%s capacity %d from the file size" % (t, cd.caps[i]))
                elif e.derived:
                    parts.append("%s capacity %d from where the %s header sits (every %s header is zero)"
                                 % (t, cd.caps[i], e.slot(), t))
                elif e.slot() != "%s/0" % t:
                    state = "has a damaged header" if any(self.header(cd.layout.region_offset(i))) else "is unused"
                    parts.append("%s capacity %d from the %s header at @%#x (%s/0 %s)"
                                 % (t, cd.caps[i], e.slot(), self.file(e.off), t, state))
        return ", ".join(parts)

    def truncated(self, need, why):
        return CaptureError(CODE_TRUNCATED, self.base + self.size,
                            "capture is truncated: %s: %d bytes needed, %d present (%d missing)"
                            % (why, need, self.size, need - self.size), name=self.name)

    def ambiguous(self, cands, fit):
        parts = []
        for i, cd in enumerate(cands):
            if i == _MAX_LISTED:
                parts.append("and %d more" % (len(cands) - i))
                break
            text = "%s, %s" % (_paren(cd.layout), self.how(cd, False))
            if cd.mismatches:
                text += ": would need " + cd.first
                if cd.mismatches > 1:
                    text += " (and %d more headers to change)" % (cd.mismatches - 1)
            elif cd.size > self.size:
                text += ": would need %d more bytes" % (cd.size - self.size)
            parts.append(text)
        head = ("%d layouts fit the headers and the file size" % len(cands) if fit else
                "no layout fits the headers and the file size; %d come close" % len(cands))
        return CaptureError(CODE_AMBIGUOUS_LAYOUT, self.base,
                            "%s, and nothing tells them apart: %s; "
                            "give the cube slot count and capacities the host planned" % (head, "; ".join(parts)),
                            name=self.name)

    def pick(self, s):
        fit = [cd for cd in s["cands"] if self.fits(cd)]
        if len(fit) == 1:
            return fit[0]
        if len(fit) > 1:
            raise self.ambiguous(fit, True)
        if len(s["cands"]) == 1:
            cd = s["cands"][0]
            if cd.size > self.size:
                raise self.truncated(cd.size, "the layout its headers declare " + _paren(cd.layout))
            return cd
        if len(s["cands"]) > 1:
            raise self.ambiguous(s["cands"], False)
        if len(s["problems"]) == 1:
            raise s["problems"][0]
        if self.all_zero():
            raise CaptureError(CODE_NO_RECORDS, self.base,
                               "capture contains no records: every byte of it is zero; check that the profiler was "
                               "active and the profiled operator completed", name=self.name)
        text = "no layout fits the headers and the file size"
        if s["tried"]:
            text += " (cube slot counts %d to %d tried)" % (s["first"], s["first"] + s["tried"] - 1)
        for lo, hi, why in s["rejects"][:_MAX_LISTED]:
            text += "; %s cube slots: %s" % ("%d to %d" % (lo, hi) if hi > lo else "%d" % lo, why)
        raise CaptureError(CODE_NO_LAYOUT, self.base, text + "; give the cube slot count and capacities the host planned",
                           name=self.name)

    def says_versus(self, cube, caps, cd):
        parts = []
        if cube and cube != cd.cube:
            what = "the file size says"
            if cd.cube_from.src == FROM_HEADERS:
                what = "the %s header at @%#x says" % (cd.cube_from.slot(), self.file(cd.cube_from.off))
            parts.append("%s %d cube slots; the given values say %d" % (what, cd.cube, cube))
        if caps is not None and tuple(caps) != cd.caps:
            slots = []
            for e in cd.sources:
                if e.src == FROM_HEADERS and not e.derived:
                    slots.append(e.slot())
                elif e.src == FROM_HEADERS:
                    slots.append("where %s sits" % e.slot())
                else:
                    slots.append("the file size")
            parts.append("the headers of %s say %s %s; the given values say %s" % (
                " and ".join(slots), "capacities" if len(REGIONS) > 1 else "capacity",
                " and ".join("%d" % c for c in cd.caps), " and ".join("%d" % c for c in caps)))
        return "; ".join(parts) if parts else "the headers declare " + _paren(cd.layout)

    def mismatch(self, cube, caps, cd):
        off = self.base
        if cube and cube != cd.cube and cd.cube_from.src == FROM_HEADERS:
            off = self.file(cd.cube_from.off)
        elif caps is not None:
            for i, e in enumerate(cd.sources):
                if caps[i] != cd.caps[i] and e.src == FROM_HEADERS:
                    off = self.file(e.off) + (0 if e.derived else _HEADER_OFFSET["record_capacity"])
                    break
        return CaptureError(CODE_LAYOUT_MISMATCH, off, self.says_versus(cube, caps, cd) + (
            "; the capture was written with another layout than the one given; give none to decode it as written (%s)"
            % self.how(cd, False)), name=self.name)


def find_layout(buf, base=0, cube_slots=None, capacities=None, name=None):
    """Find the layout of a buffer (a uint8 array) as decode finds it.

    With neither cube_slots nor capacities (one per region, in REGIONS
    order) given, the layout is searched from the headers and the buffer
    size alone; given values are used once the headers do not contradict
    them (layout-mismatch names both). The cube slot count and one capacity
    per region are read from the header where each region starts (or, when
    that core never ran, the first live header after it) and from the
    buffer size. The rules are package capture's, by the same names
    (docs/layout.md in the cycleabi repository states them in order): for
    each cube slot count of rule_cube_range, the region rules
    (rule_past_end, rule_live_start, rule_damaged_start, rule_unused_start,
    rule_same_region, rule_next_region, rule_later_region, rule_zero_tail)
    place each region in buffer order, then rule_pinned and
    rule_makes_layout make a candidate, which rule_slot_headers and
    rule_cross_check hold to every header. The only
    candidate that fits (nothing disagrees, the buffer holds it) is the
    layout; several that fit are ambiguous-layout, none no-layout (or
    truncated, when the one candidate is longer than the buffer; or
    no-records, when every header is zero): CaptureError.

    Returns (Layout, source, how): source "headers" or "host" (capacities
    given), how the phrase decode prints ("found: 32 cube slots from the
    AIV/0 header at @0x9610"). Values that make no layout raise LayoutError.
    """
    cube = int(cube_slots) if cube_slots else 0
    if capacities is not None:
        capacities = tuple(int(c) for c in capacities)
        if len(capacities) != len(REGIONS):
            raise LayoutError("want %d capacities (one per region), got %d" % (len(REGIONS), len(capacities)))
    if cube and cube < _MIN_CUBE_SLOTS:
        raise LayoutError("cube slot count %d: below the schema's minimum %d" % (cube, _MIN_CUBE_SLOTS))
    if capacities is not None:
        for r, c in zip(REGIONS, capacities):
            try:
                check_capacity(c)
            except LayoutError as e:
                raise LayoutError("%s capacity %d: %s" % (r.core_type.name, c, e))
        if cube:
            Layout(cube, capacities)
    f = _Finder(buf, base, name)
    headers = Layout(max(cube, _MIN_CUBE_SLOTS), (0,) * len(REGIONS))
    if f.size < headers.size:
        raise CaptureError(CODE_SHORT_BUFFER, base + f.size,
                           "buffer has %d bytes, fewer than the %d core headers of %d cube slots need (%d)"
                           % (f.size, headers.num_slots, headers.cube_slots, headers.size), name=name)
    if not cube and capacities is None:
        cd = f.pick(f.search(0, None))
        return cd.layout, FROM_HEADERS, f.how(cd, False)
    own = f.search(0, None)
    fit = [cd for cd in own["cands"] if f.fits(cd)]
    if len(fit) == 1 and not ((not cube or cube == fit[0].cube) and (capacities is None or capacities == fit[0].caps)):
        raise f.mismatch(cube, capacities, fit[0])
    if cube and capacities is not None:
        layout = Layout(cube, capacities)
        if layout.size <= f.size:
            return layout, FROM_HOST, "given"
        if any(cd.cube == cube and cd.caps == capacities for cd in own["cands"]):
            raise f.truncated(layout.size, "the layout given, which its headers declare too, " + _paren(layout))
        text = "the layout given %s needs %d bytes, the buffer has %d" % (_paren(layout), layout.size, f.size)
        if len(own["cands"]) == 1:
            text += "; " + f.says_versus(cube, capacities, own["cands"][0])
        else:
            text += "; its headers do not declare that layout"
        raise CaptureError(CODE_LAYOUT_MISMATCH, base, text, name=name)
    cd = f.pick(f.search(cube, capacities))
    return cd.layout, FROM_HOST if capacities is not None else FROM_HEADERS, f.how(cd, capacities is not None)


def _region_headers(buf, layout, i):
    r = REGIONS[i]
    n = r.slots_per_cube_slot * layout.cube_slots
    return np.ndarray(shape=(n,), dtype=HEADER_DTYPE, buffer=buf, offset=layout.region_offset(i),
                      strides=(slot_stride(layout.capacities[i]),))


def _scan(buf, base, layout, name):
    # Check every slot as decode does, in buffer order, stopping at the first
    # error; return the Slots with their headers and live records.
    slots = []
    for i, r in enumerate(REGIONS):
        capacity = layout.capacities[i]
        stride = slot_stride(capacity)
        start = layout.region_offset(i)
        hs = _region_headers(buf, layout, i)
        n = len(hs)
        if n == 0:
            continue
        live = np.zeros(n, dtype=bool)
        for f in _HEADER_VALUE_FIELDS:
            live |= hs[f] != 0
        blocks = np.arange(n, dtype=np.uint64)
        identity = (hs["core_type"] != int(r.core_type)) | (hs["block_id"] != blocks)
        cap_bad = hs["record_capacity"] != capacity
        reserved_bad = hs["reserved"] != 0
        count_bad = hs["record_count"] > capacity
        header_bad = live & (identity | cap_bad | reserved_bad | count_bad)
        first_bad = int(np.argmax(header_bad)) if header_bad.any() else n
        walked = np.where(live, np.minimum(hs["record_count"], capacity), 0)
        for b in np.nonzero(live[:first_bad] & (walked[:first_bad] > 0))[0]:
            count = int(walked[b])
            off = start + int(b) * stride + HEADER_SIZE
            recs = buf[off:off + count * RECORD_SIZE].view(RECORD_DTYPE)
            neg = recs["end_cycle"] < recs["start_cycle"]
            if neg.any():
                k = int(np.argmax(neg))
                rec = recs[k]
                raise CaptureError(CODE_NEGATIVE_INTERVAL, base + off + k * RECORD_SIZE + _RECORD_OFFSET["end_cycle"],
                                   "start_cycle=%d end_cycle=%d, expected end_cycle >= start_cycle"
                                   % (int(rec["start_cycle"]), int(rec["end_cycle"])),
                                   slot="%s/%d" % (r.core_type.name, b), record=k, name=name)
        if first_bad < n:
            b = first_bad
            h = hs[b]
            slot_off = base + start + b * stride
            slot = "%s/%d" % (r.core_type.name, b)
            if identity[b]:
                raise CaptureError(CODE_SLOT_IDENTITY, slot_off + _HEADER_OFFSET["core_type"],
                                   "core_type=%d block_id=%d, expected %s" % (int(h["core_type"]), int(h["block_id"]), slot),
                                   slot=slot, name=name)
            if cap_bad[b]:
                raise CaptureError(CODE_CAPACITY_MISMATCH, slot_off + _HEADER_OFFSET["record_capacity"],
                                   "record_capacity=%d, expected %d (the layout's %s capacity)"
                                   % (int(h["record_capacity"]), capacity, r.core_type.name), slot=slot, name=name)
            if reserved_bad[b]:
                raise CaptureError(CODE_RESERVED_NONZERO, slot_off + _HEADER_OFFSET["reserved"],
                                   "reserved=%#x, expected 0" % int(h["reserved"]), slot=slot, name=name)
            raise CaptureError(CODE_COUNT_OVER_CAPACITY, slot_off + _HEADER_OFFSET["record_count"],
                               "record_count=%d, expected at most record_capacity %d" % (int(h["record_count"]), capacity),
                               slot=slot, name=name)
        for b in range(n):
            off = start + b * stride
            count = int(walked[b])
            recs = buf[off + HEADER_SIZE:off + HEADER_SIZE + count * RECORD_SIZE].view(RECORD_DTYPE)
            slots.append(Slot(r.core_type, b, off, capacity, hs[b], recs))
    if not any(len(s.records) for s in slots):
        raise CaptureError(CODE_NO_RECORDS, base,
                           "capture contains no records; check that the profiler was active and the profiled operator completed",
                           name=name)
    return slots


def _read_capture(source, cube_slots, capacities, name):
    name, fmt, base, buf, warnings = _open(source, name)
    layout, layout_source, how = find_layout(buf, base, cube_slots, capacities, name)
    slots = _scan(buf, base, layout, name)
    c = Capture(name, fmt, base, buf, layout, layout_source, slots)
    c.layout_how, c.warnings = how, warnings
    return c


def _capacities(values):
    given = [v is not None for v in values]
    if not any(given):
        return None
    if not all(given):
        raise ValueError("give every region's capacity (%s) or none"
                         % ", ".join(r.core_type.name for r in REGIONS))
    return tuple(int(v) for v in values)
