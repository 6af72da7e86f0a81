"""Reads what a Python extension module's native library offers and needs, for any platform.

The platform zips are cross-built on Linux, so the Windows `.pyd` (PE) and the macOS `.so`
(Mach-O) can't be loaded here; this reads their headers instead, with the standard library
only: the format and CPU, the exported symbols (what the interpreter looks up:
`PyInit_<module>`), the libraries it links (what must exist on the artist's machine) and, for
Mach-O, the oldest macOS it was built for. 64-bit little-endian files only (every platform
Gloop ships); anything else raises ValueError.

    lib = read_native_library(data)
    lib.format, lib.machine, lib.exports, lib.needed, lib.min_macos
"""

import hashlib
import struct
from dataclasses import dataclass, field


@dataclass
class NativeLibrary:
    format: str  # "ELF", "PE" or "Mach-O"
    machine: str  # "x86_64" or "arm64"
    exports: set = field(default_factory=set)  # symbol names as a C program spells them
    needed: list = field(default_factory=list)  # linked libraries (DLL names, install names)
    min_macos: tuple | None = None  # (major, minor) from LC_BUILD_VERSION, Mach-O only
    # Mach-O only: None without a code signature, else whether every page hash matches.
    # Apple silicon refuses arm64 code that is unsigned or changed after signing (a strip
    # run after the linker signed it, say); an ad-hoc signature is enough for a dylib.
    code_signature_valid: bool | None = None


def read_native_library(data):
    if data[:4] == b"\x7fELF":
        return _read_elf(data)
    if data[:2] == b"MZ":
        return _read_pe(data)
    if data[:4] == b"\xcf\xfa\xed\xfe":
        return _read_macho(data)
    raise ValueError(f"not a 64-bit little-endian ELF, PE or Mach-O file: {data[:4]!r}")


def _c_string(data, offset):
    end = data.index(b"\0", offset)
    return data[offset:end].decode("utf-8", "replace")


# ELF: the dynamic symbol table (.dynsym) is what the loader's dlsym searches; DT_NEEDED entries
# of .dynamic name the shared libraries it loads first.
ELF_MACHINES = {62: "x86_64", 183: "arm64"}
SHT_DYNAMIC, SHT_DYNSYM = 6, 11
DT_NEEDED = 1
STB_GLOBAL, STB_WEAK = 1, 2
STV_DEFAULT, STV_PROTECTED = 0, 3


def _read_elf(data):
    if data[4] != 2 or data[5] != 1:
        raise ValueError("only 64-bit little-endian ELF is read")
    (machine,) = struct.unpack_from("<H", data, 18)
    shoff, shentsize, shnum = (
        struct.unpack_from("<Q", data, 40)[0],
        *struct.unpack_from("<HH", data, 58),
    )
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)
    ]
    lib = NativeLibrary("ELF", ELF_MACHINES.get(machine, f"e_machine {machine}"))
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        strtab_offset = sections[link][4]
        if kind == SHT_DYNSYM:
            for pos in range(offset + entsize, offset + size, entsize):  # entry 0 is null
                name, info, other, shndx = struct.unpack_from("<IBBH", data, pos)
                defined = shndx != 0
                visible = (other & 3) in (STV_DEFAULT, STV_PROTECTED)
                if defined and visible and info >> 4 in (STB_GLOBAL, STB_WEAK):
                    lib.exports.add(_c_string(data, strtab_offset + name))
        elif kind == SHT_DYNAMIC:
            for pos in range(offset, offset + size, 16):
                tag, value = struct.unpack_from("<qQ", data, pos)
                if tag == DT_NEEDED:
                    lib.needed.append(_c_string(data, strtab_offset + value))
    return lib


# PE: the export directory lists the names `GetProcAddress` finds; the import directory the
# DLLs Windows loads with it (a missing one fails the import with "DLL load failed").
PE_MACHINES = {0x8664: "x86_64", 0xAA64: "arm64"}
PE32_PLUS = 0x20B


def _read_pe(data):
    (pe_offset,) = struct.unpack_from("<I", data, 0x3C)
    if data[pe_offset : pe_offset + 4] != b"PE\0\0":
        raise ValueError("MZ file without a PE header")
    coff = pe_offset + 4
    machine, n_sections = struct.unpack_from("<HH", data, coff)
    (optional_size,) = struct.unpack_from("<H", data, coff + 16)
    optional = coff + 20
    (magic,) = struct.unpack_from("<H", data, optional)
    if magic != PE32_PLUS:
        raise ValueError("only PE32+ (64-bit) is read")
    (n_directories,) = struct.unpack_from("<I", data, optional + 108)
    directories = [
        struct.unpack_from("<II", data, optional + 112 + 8 * i) for i in range(n_directories)
    ]
    section_table = optional + optional_size
    sections = []
    for i in range(n_sections):
        vsize, vaddr, raw_size, raw_ptr = struct.unpack_from(
            "<IIII", data, section_table + 40 * i + 8
        )
        sections.append((vaddr, max(vsize, raw_size), raw_ptr))

    def offset_of(rva):
        for vaddr, size, raw_ptr in sections:
            if vaddr <= rva < vaddr + size:
                return raw_ptr + rva - vaddr
        raise ValueError(f"RVA {rva:#x} is in no section")

    lib = NativeLibrary("PE", PE_MACHINES.get(machine, f"machine {machine:#x}"))
    export_rva, export_size = directories[0]
    if export_size:
        export = offset_of(export_rva)
        n_names, _functions, names_rva = struct.unpack_from("<III", data, export + 24)
        for i in range(n_names):
            (name_rva,) = struct.unpack_from("<I", data, offset_of(names_rva) + 4 * i)
            lib.exports.add(_c_string(data, offset_of(name_rva)))
    import_rva, import_size = directories[1]
    if import_size:
        descriptor = offset_of(import_rva)
        while True:
            fields = struct.unpack_from("<IIIII", data, descriptor)
            if not any(fields):
                break
            lib.needed.append(_c_string(data, offset_of(fields[3])))
            descriptor += 20
    return lib


# Mach-O: dyld's dlsym looks names up in the export trie (LC_DYLD_INFO(_ONLY) or
# LC_DYLD_EXPORTS_TRIE); the nlist symbol table is read only if there is no trie. Names carry
# the C underscore (`_PyInit_x`), dropped here. LC_LOAD_DYLIB names the libraries it links.
MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "arm64"}
LC_SYMTAB = 0x2
LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB = 0xC, 0x80000018, 0x8000001F
LC_DYLD_INFO, LC_DYLD_INFO_ONLY, LC_DYLD_EXPORTS_TRIE = 0x22, 0x80000022, 0x80000033
LC_VERSION_MIN_MACOSX, LC_BUILD_VERSION = 0x24, 0x32
LC_CODE_SIGNATURE = 0x1D
PLATFORM_MACOS = 1
N_STAB, N_TYPE, N_EXT, N_SECT = 0xE0, 0x0E, 0x01, 0x0E


def _read_macho(data):
    cpu, _subtype, _filetype, n_commands = struct.unpack_from("<iiII", data, 4)
    lib = NativeLibrary("Mach-O", MACHO_CPUS.get(cpu, f"cputype {cpu:#x}"))
    trie = symtab = None
    pos = 32
    for _ in range(n_commands):
        command, size = struct.unpack_from("<II", data, pos)
        if command in (LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB):
            (name_offset,) = struct.unpack_from("<I", data, pos + 8)
            lib.needed.append(_c_string(data, pos + name_offset))
        elif command in (LC_DYLD_INFO, LC_DYLD_INFO_ONLY):
            trie = struct.unpack_from("<II", data, pos + 40)
        elif command == LC_DYLD_EXPORTS_TRIE:
            trie = struct.unpack_from("<II", data, pos + 8)
        elif command == LC_SYMTAB:
            symtab = struct.unpack_from("<IIII", data, pos + 8)
        elif command == LC_BUILD_VERSION:
            platform, minos = struct.unpack_from("<II", data, pos + 8)
            if platform == PLATFORM_MACOS:
                lib.min_macos = (minos >> 16, (minos >> 8) & 0xFF)
        elif command == LC_CODE_SIGNATURE:
            lib.code_signature_valid = _code_signature_valid(
                data, *struct.unpack_from("<II", data, pos + 8)
            )
        elif command == LC_VERSION_MIN_MACOSX:
            (minos,) = struct.unpack_from("<I", data, pos + 8)
            lib.min_macos = (minos >> 16, (minos >> 8) & 0xFF)
        pos += size
    if trie and trie[1]:
        names = _export_trie(data, *trie)
    elif symtab:
        names = _nlist_exports(data, *symtab)
    else:
        names = []
    lib.exports = {n.removeprefix("_") for n in names}
    return lib


def _uleb128(data, pos):
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def _export_trie(data, start, size):
    """Every name in dyld's export trie: each node is (terminal info, then edges of
    (label, child offset)); a name is the labels on the path to a node with terminal info."""
    names, stack, seen = [], [(0, "")], set()
    while stack:
        node, prefix = stack.pop()
        if node in seen or node >= size:
            raise ValueError("malformed export trie")
        seen.add(node)
        pos = start + node
        terminal_size, pos = _uleb128(data, pos)
        if terminal_size:
            names.append(prefix)
        pos += terminal_size
        n_edges = data[pos]
        pos += 1
        for _ in range(n_edges):
            label = _c_string(data, pos)
            pos += len(label.encode()) + 1
            child, pos = _uleb128(data, pos)
            stack.append((child, prefix + label))
    return names


def _nlist_exports(data, symoff, nsyms, stroff, _strsize):
    names = []
    for i in range(nsyms):
        strx, kind, _sect, _desc, _value = struct.unpack_from("<IBBHQ", data, symoff + 16 * i)
        if not kind & N_STAB and kind & N_EXT and kind & N_TYPE == N_SECT:
            names.append(_c_string(data, stroff + strx))
    return names


# Code signature blobs are big-endian: a SuperBlob indexing a CodeDirectory whose code slots
# hold one hash per page of the file up to codeLimit.
CSMAGIC_EMBEDDED_SIGNATURE, CSMAGIC_CODEDIRECTORY = 0xFADE0CC0, 0xFADE0C02
CS_HASHES = {1: hashlib.sha1, 2: hashlib.sha256}


def _code_signature_valid(data, offset, size):
    magic, _length, count = struct.unpack_from(">III", data, offset)
    if magic != CSMAGIC_EMBEDDED_SIGNATURE:
        return False
    for i in range(count):
        _slot, blob = struct.unpack_from(">II", data, offset + 12 + 8 * i)
        directory = offset + blob
        if struct.unpack_from(">I", data, directory)[0] != CSMAGIC_CODEDIRECTORY:
            continue
        hash_offset, _ident, _special, n_code_slots, code_limit = struct.unpack_from(
            ">IIIII", data, directory + 16
        )
        hash_size, hash_type, _platform, page_log2 = struct.unpack_from(
            ">BBBB", data, directory + 36
        )
        if hash_type not in CS_HASHES or code_limit > offset:
            return False
        page = 1 << page_log2
        for slot in range(n_code_slots):
            start = slot * page
            digest = CS_HASHES[hash_type](data[start : min(start + page, code_limit)]).digest()
            stored = directory + hash_offset + slot * hash_size
            if digest[:hash_size] != data[stored : stored + hash_size]:
                return False
        return n_code_slots == -(-code_limit // page)
    return False
