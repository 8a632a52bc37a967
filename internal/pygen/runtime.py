
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


def desc_schema_name(desc_id):
    """The display name the schema gives desc_id, or None when it gives none."""
    ns, index = lookup_desc(desc_id)
    if ns is None or index not in ns.names:
        return None
    return _expand(ns.display, ns.names[index], index, int(desc_id))


def desc_name(desc_id, stages=None):
    """The display name of desc_id exactly as decode writes it: stages[desc_id]
    when stages (a names file's desc_id -> name map) has it, else the schema's
    name, else its namespace's fallback ("TaskType_250", "GraphStage_5"), else
    DESC_UNKNOWN ("DescId_<desc_id>")."""
    desc_id = int(desc_id)
    if stages and desc_id in stages:
        return stages[desc_id]
    name = desc_schema_name(desc_id)
    if name is not None:
        return name
    ns, index = lookup_desc(desc_id)
    if ns is None:
        return _expand(DESC_UNKNOWN, "", desc_id, desc_id)
    return _expand(ns.fallback, "", index, desc_id)


def task_stage_prefixed(desc_id):
    """Whether decode prefixes desc_id's name with the task's stage name."""
    ns, index = lookup_desc(desc_id)
    return ns is not None and index in ns.task_stage_prefix


def event_name(desc_id, task_id=0, stage_task_index=0, owner_id=None, stages=None, tasks=None,
               detailed=False, owner_label="Owner"):
    """The trace-event name decode gives a record: desc_name(desc_id, stages),
    prefixed with "<task stage>_" when tasks (task_id -> stage name) names the
    task's stage and the descriptor takes the prefix; with detailed=True,
    "_task<stage_task_index+1>" appended and "<owner_label><owner_id>_"
    prefixed unless owner_id is None or the no-owner value."""
    name = desc_name(desc_id, stages)
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
    letters, digits and '_' kept, "ascend" prefixed when missing."""
    kept = "".join(c for c in name.lower() if c == "_" or unicodedata.category(c)[0] in "LN")
    return kept if kept.startswith("ascend") else "ascend" + kept


def system_counter_mhz(soc):
    """The system-counter frequency (MHz) of the SoC named soc: the first SOCS
    entry whose prefix starts normalize_soc_name(soc); ValueError if none."""
    name = normalize_soc_name(soc)
    for s in SOCS:
        if name.startswith(s.prefix):
            return s.mhz
    raise ValueError("unsupported Ascend SoC for MegaKernel profiling: %r; supported SoC prefixes: %s"
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
    zero-copy); layout is the Layout found and layout_source how
    ("headers": capacities from the first header of each region; "host":
    given). headers holds every slot's header in buffer order (a structured
    array of HEADER_DTYPE), slots every Slot with its header record and a
    zero-copy view of its live records. record_count is the number of live
    records and dropped_count the sum of the live headers' dropped counts.
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


def _dtype_size(d):
    # The byte size of one element of a .npy descr, as capture/npy.go computes it.
    if isinstance(d, str):
        s = d.lstrip("<>|=")
        if not s:
            raise ValueError("empty dtype")
        kind, digits = s[0], s[1:]
        if "[" in digits:
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
    if isinstance(d, list):
        total = 0
        for f in d:
            if not isinstance(f, list) or not 2 <= len(f) <= 3:
                raise ValueError("unsupported structured dtype %r" % (d,))
            size = _dtype_size(f[1])
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
        return total
    raise ValueError("missing or unsupported descr %r" % (d,))


def _npy_header(data, name):
    # (payload offset, payload bytes) of a .npy file's bytes, or CaptureError
    # with the code and offset the Go reader gives.
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
        item_size = _dtype_size(header.get("descr"))
        shape = header.get("shape")
        if not isinstance(shape, list):
            raise ValueError("shape is not a tuple")
    except ValueError as e:
        raise bad("bad .npy header: %s" % e)
    count, big_dims = 1, 0
    for dim in shape:
        if not _is_int(dim) or dim < 0:
            raise bad("bad .npy header: shape %r" % (shape,))
        if dim > 1:
            big_dims += 1
        product = count * dim
        count = size + 1 if product >= 1 << 64 or product > size else product
    if header.get("fortran_order") is True and big_dims > 1:
        raise bad("Fortran-order array of shape %r: its bytes are not the buffer in order; "
                  "save it with np.save(np.ascontiguousarray(a))" % (tuple(shape),))
    payload = count * item_size
    if payload >= 1 << 64 or payload > 1 << 62:
        payload = 1 << 62
    return data_off, payload


def _source_bytes(source):
    # (name, uint8 array of the whole source, whether to look for a .npy header)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise ValueError("%s: not a regular file" % path)
            if st.st_size == 0:
                return path, np.zeros(0, dtype=np.uint8), True
            m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return path, np.frombuffer(m, dtype=np.uint8), True
    if isinstance(source, (bytes, bytearray, memoryview)):
        view = memoryview(source)
        if not view.c_contiguous:
            raise ValueError("capture memoryview is not C-contiguous")
        return "<bytes>", np.frombuffer(view.cast("B") if view.ndim != 1 or view.format != "B" else view,
                                        dtype=np.uint8), True
    if not isinstance(source, np.ndarray) and hasattr(source, "numpy"):
        source = source.numpy()
    if isinstance(source, np.ndarray):
        if source.dtype.hasobject:
            raise ValueError("capture array of dtype %s holds pointers, not the buffer's bytes" % source.dtype)
        if not source.flags.c_contiguous:
            raise ValueError("capture array is not C-contiguous; pass np.ascontiguousarray(a)")
        return "<array>", source.reshape(-1).view(np.uint8), False
    raise TypeError("read_capture: want a path, bytes, memoryview, NumPy array or tensor, got %s"
                    % type(source).__name__)


def _open(source, name):
    # (name, format, base, buffer) of a source: the buffer is the .npy payload
    # or the whole raw bytes.
    src_name, data, sniff = _source_bytes(source)
    name = src_name if name is None else name
    if sniff and len(data) >= len(_NPY_MAGIC) and bytes(data[:len(_NPY_MAGIC)]) == _NPY_MAGIC:
        data_off, payload = _npy_header(data, name)
        present = len(data) - data_off
        if payload > present:
            raise CaptureError(CODE_TRUNCATED, len(data),
                               "truncated .npy file: its header declares %d payload bytes, %d are present (%d missing)"
                               % (payload, present, payload - present), name=name)
        return name, "npy", data_off, data[data_off:data_off + payload]
    return name, "raw", 0, data


def _header_at(buf, off):
    return buf[off:off + HEADER_SIZE].view(HEADER_DTYPE)[0]


def _live(h):
    # A header with every non-padding field zero belongs to a core that never
    # entered the kernel.
    return any(int(h[f]) for f in _HEADER_VALUE_FIELDS)


def find_layout(buf, base=0, cube_slots=None, capacities=None, name=None):
    """Find the layout of a buffer (uint8 array) as decode does: cube_slots
    (None: the minimum) and, unless capacities (one per region, REGIONS order)
    are given, each region's capacity from the record_capacity of its first
    slot's header. Returns (Layout, source) with source "headers" or "host".
    A buffer that cannot hold its layout is a CaptureError (offsets are
    base + buffer offset); options that make no layout are a LayoutError."""
    size = len(buf)
    cube = _MIN_CUBE_SLOTS if not cube_slots else int(cube_slots)

    def truncated(need, why):
        return CaptureError(CODE_TRUNCATED, base + size,
                            "capture is truncated: %s: %d bytes needed, %d present (%d missing)"
                            % (why, need, size, need - size), name=name)

    def check_fits(layout, what):
        if layout.size > size:
            caps = ", ".join("%s capacity %d" % (r.core_type.name, c) for r, c in zip(REGIONS, layout.capacities))
            raise truncated(layout.size, "%s (%d cube slots, %s)" % (what, layout.cube_slots, caps))

    try:
        headers_only = Layout(cube, (0,) * len(REGIONS))
    except LayoutError as e:
        raise LayoutError("cube_slots %d: %s" % (cube, e))
    if size < headers_only.size:
        raise CaptureError(CODE_SHORT_BUFFER, base + size,
                           "buffer has %d bytes, fewer than the %d core headers of %d cube slots need (%d)"
                           % (size, headers_only.num_slots, cube, headers_only.size), name=name)
    if capacities is not None:
        try:
            layout = Layout(cube, capacities)
        except LayoutError as e:
            raise LayoutError("planned capacities %s: %s" % (tuple(capacities), e))
        check_fits(layout, "the host-planned layout")
        return layout, "host"
    caps = [0] * len(REGIONS)
    for i, r in enumerate(REGIONS):
        partial = Layout(cube, caps)
        off = partial.region_offset(i)
        if off + HEADER_SIZE > size:
            prev = REGIONS[i - 1]
            raise truncated(off + HEADER_SIZE, "%s capacity %d puts the %s/0 header at @%#x"
                            % (prev.core_type.name, caps[i - 1], r.core_type.name, base + off))
        capacity = int(_header_at(buf, off)["record_capacity"])
        try:
            check_capacity(capacity)
        except LayoutError:
            raise CaptureError(CODE_BAD_CAPACITY, base + off + _HEADER_OFFSET["record_capacity"],
                               "record_capacity=%d, expected a multiple of %d at most %d"
                               % (capacity, _CAPACITY_ALIGNMENT, _MAX_RECORDS_PER_CORE),
                               slot="%s/0" % r.core_type.name, name=name)
        caps[i] = capacity
    layout = Layout(cube, caps)
    check_fits(layout, "the layout its headers declare")
    return layout, "headers"


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
    name, fmt, base, buf = _open(source, name)
    layout, layout_source = find_layout(buf, base, cube_slots, capacities, name)
    slots = _scan(buf, base, layout, name)
    return Capture(name, fmt, base, buf, layout, layout_source, slots)


def _capacities(values):
    given = [v is not None for v in values]
    if not any(given):
        return None
    if not all(given):
        raise ValueError("give every region's capacity (%s) or none"
                         % ", ".join(r.core_type.name for r in REGIONS))
    return tuple(int(v) for v in values)
