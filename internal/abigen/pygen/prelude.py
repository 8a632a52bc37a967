import collections
import enum
import mmap
import os
import re
import stat
import struct
import unicodedata

import numpy as np


class Region(collections.namedtuple("Region", "core_type slots_per_cube_slot")):
    """A run of slots of one core type: slots_per_cube_slot * C slots."""

    __slots__ = ()


class SoC(collections.namedtuple("SoC", "prefix mhz")):
    """A normalised SoC-name prefix and its system-counter frequency in MHz."""

    __slots__ = ()


class KernelFamily(collections.namedtuple(
        "KernelFamily", "name kernel_names owner_label upstream task_types stages")):
    """A kernel family: kernels that share one task-type table and one set of
    kernel-specific stage ids.

    kernel_names select the family (family_for_kernel); owner_label prefixes
    owner ids in detailed names (None: none); upstream names the upstream
    files and commits the tables follow; task_types maps a task-type value to
    its name and replaces the enum's names entirely under the family; stages
    maps a desc_id to a FamilyStage.
    """

    __slots__ = ()


class FamilyStage(collections.namedtuple("FamilyStage", "name stage_class task_type")):
    """A family's stage: its name, its class ("compute", "wait" or "trigger")
    and the task-type value of the tasks that write it (None: not given)."""

    __slots__ = ()


class DescNamespace(collections.namedtuple(
        "DescNamespace", "name base count display fallback arg enum names task_stage_prefix")):
    """A descriptor-ID namespace: the desc_ids [base, base + count).

    display formats a named id ({name}, {index}, {desc_id}), fallback an
    unnamed one ({index}, {desc_id}); arg is the trace-event argument that
    carries the index (None: none); names maps an index to its schema name
    (the enum's members when enum is set); task_stage_prefix holds the
    indexes whose names decode prefixes with the task's stage name.
    """

    __slots__ = ()

    @property
    def end(self):
        """The first desc_id after the namespace."""
        return self.base + self.count

    def __contains__(self, desc_id):
        return self.base <= desc_id < self.base + self.count

    def mask(self, desc_ids):
        """A boolean array: which of desc_ids (an array) fall in the namespace."""
        ids = np.asarray(desc_ids, dtype=np.int64)
        return (ids >= self.base) & (ids < self.base + self.count)
