#!/usr/bin/env python3
"""Shrinks a perf.data (file form, little-endian) into a fuzzing seed:
the header, the attributes with their ids, the data section, and of the
features only the tracing data, itself cut to header_page, header_event
and the formats of the events the attributes name (no ftrace formats,
kallsyms, printk formats or saved cmdlines). With --pipe, the piped form
(perf record -o -): a 16-byte header, then the attributes and the
tracing data as records, then the data. usage: shrink-perfdata.py [--pipe] IN OUT"""
import struct
import sys

pipe = sys.argv[1] == '--pipe'
if pipe:
    del sys.argv[1]
src = open(sys.argv[1], 'rb').read()
assert src[:8] == b'PERFILE2'
hsize, attr_size, a_off, a_size, d_off, d_size = struct.unpack_from('<QQQQQQ', src, 8)
bits = struct.unpack_from('<Q', src, 72)[0]
assert bits & 2, 'no tracing data'
table = d_off + d_size + (16 if bits & 1 else 0)
t_off, t_size = struct.unpack_from('<QQ', src, table)
t = src[t_off:t_off + t_size]

# the tracepoint ids the attributes name
ids = set()
for a in range(a_off, a_off + a_size, attr_size):
    typ, = struct.unpack_from('<I', src, a)
    cfg, = struct.unpack_from('<Q', src, a + 8)
    if typ == 2:
        ids.add(cfg)

# read the tracing data
p = 10
v_end = t.index(b'\0', p)
out = bytearray(t[:v_end + 1])  # magic, version
p = v_end + 1
out += t[p:p + 6]  # endian, long size, page size
p += 6
for name in (b'header_page\0', b'header_event\0'):
    assert t[p:p + len(name)] == name
    size, = struct.unpack_from('<Q', t, p + len(name))
    out += t[p:p + len(name) + 8 + size]
    p += len(name) + 8 + size
n, = struct.unpack_from('<I', t, p)
p += 4
for _ in range(n):
    size, = struct.unpack_from('<Q', t, p)
    p += 8 + size
out += struct.pack('<I', 0)  # no ftrace formats
n_sys, = struct.unpack_from('<I', t, p)
p += 4
systems = []
for _ in range(n_sys):
    e = t.index(b'\0', p)
    name = t[p:e + 1]
    p = e + 1
    n, = struct.unpack_from('<I', t, p)
    p += 4
    kept = []
    for _ in range(n):
        size, = struct.unpack_from('<Q', t, p)
        fmt = t[p + 8:p + 8 + size]
        p += 8 + size
        for line in fmt.split(b'\n'):
            if line.startswith(b'ID: ') and int(line[4:]) in ids:
                kept.append(fmt)
    if kept:
        systems.append((name, kept))
out += struct.pack('<I', len(systems))
for name, fmts in systems:
    out += name + struct.pack('<I', len(fmts))
    for fmt in fmts:
        out += struct.pack('<Q', len(fmt)) + fmt
out += struct.pack('<I', 0) + struct.pack('<I', 0)  # kallsyms, printk
out += struct.pack('<Q', 0)  # saved cmdlines

# the new file: header, attrs, ids, data, feature table, tracing data
attrs = bytearray()
id_blobs = []
for a in range(a_off, a_off + a_size, attr_size):
    io, isz = struct.unpack_from('<QQ', src, a + attr_size - 16)
    id_blobs.append(src[io:io + isz])
pos = 104
ids_at = []
for blob in id_blobs:
    ids_at.append(pos)
    pos += len(blob)
new_a_off = pos
for i, a in enumerate(range(a_off, a_off + a_size, attr_size)):
    attrs += src[a:a + attr_size - 16] + struct.pack('<QQ', ids_at[i], len(id_blobs[i]))
pos += len(attrs)
new_d_off = pos
data = src[d_off:d_off + d_size]
pos += len(data)
new_table = pos
new_t_off = pos + 16
head = bytearray(src[:104])
struct.pack_into('<QQQQQQ', head, 8, 104, attr_size, new_a_off, len(attrs), new_d_off, len(data))
struct.pack_into('<QQ', head, 56, 0, 0)
head[72:104] = struct.pack('<QQQQ', 2, 0, 0, 0)
body = head + b''.join(id_blobs) + attrs + data + struct.pack('<QQ', new_t_off, len(out)) + out
if pipe:
    body = bytearray(b'PERFILE2' + struct.pack('<Q', 16))
    for i, a in enumerate(range(a_off, a_off + a_size, attr_size)):
        attr = src[a:a + attr_size - 16]
        rec = attr + id_blobs[i]
        body += struct.pack('<IHH', 64, 0, 8 + len(rec)) + rec
    padded = out + b'\0' * (-len(out) % 8)
    body += struct.pack('<IHHI', 66, 0, 12, len(padded)) + padded
    body += data
open(sys.argv[2], 'wb').write(body)
