"""How much of a firmware's flash is the model's constants: the bytes of the model file's
buffers (weights, biases, constant tensors) that the firmware holds, found in its flash image.

    python3 bench/flash.py FIRMWARE.elf MODEL.tflite

prints
    text N          the ELF's allocated, read-only sections (arm-none-eabi-size's `text`)
    constants N     bytes of text that are one of the model's buffers, byte for byte
    code N          text - constants: the code, and every constant the model's buffers are not
                    (kernel parameters computed when the crate compiled, tables, strings)
    buffers K of M  the model's buffers of 16 bytes or more found / there are (smaller ones,
                    shapes and the like, are not looked for: they could match code by chance)

Generated code copies each constant buffer it reads out of the model file into a constant of
its own, so a buffer that `invoke` reads is in flash as the model has it, or re-laid for its
kernel: a FULLY_CONNECTED filter that the interleaved kernel reads is in blocks of four rows,
each block's words interleaved (`kernels::fully_connected_kernel::interleaved_word`). Each
buffer is looked for at 4-byte aligned places of the flash image not already claimed by another
(largest first), as the model has it and, if not found so, re-laid for each row length it could
have (a multiple of 4 that divides its size, with at least four rows); two buffers with the same
bytes count twice only when the image holds them twice.
Only the Python standard library: the model is read as a flatbuffer by hand (TFLite's schema:
Model.buffers is field 4, Buffer.data field 0, Buffer.offset and Buffer.size fields 1 and 2 for
buffers stored after the flatbuffer).
"""

import struct
import sys

MIN_BUFFER = 16


def u16(b, at):
    return struct.unpack_from("<H", b, at)[0]


def u32(b, at):
    return struct.unpack_from("<I", b, at)[0]


def field(b, table, index):
    """The position of a table's field `index`, or None when absent."""
    vt = table - struct.unpack_from("<i", b, table)[0]
    if 4 + 2 * index >= u16(b, vt):
        return None
    off = u16(b, vt + 4 + 2 * index)
    return table + off if off else None


def model_buffers(b):
    model = u32(b, 0)
    at = field(b, model, 4)
    if at is None:
        return []
    vec = at + u32(b, at)
    out = []
    for k in range(u32(b, vec)):
        elem = vec + 4 + 4 * k
        buf = elem + u32(b, elem)
        data = field(b, buf, 0)
        if data is not None:
            v = data + u32(b, data)
            out.append(b[v + 4 : v + 4 + u32(b, v)])
            continue
        off, size = field(b, buf, 1), field(b, buf, 2)
        if off is not None and size is not None:
            o, n = struct.unpack_from("<Q", b, off)[0], struct.unpack_from("<Q", b, size)[0]
            out.append(b[o : o + n] if o > 1 else b"")
        else:
            out.append(b"")
    return out


def flash_image(elf):
    """The bytes of the ELF's allocated, read-only PROGBITS sections, concatenated."""
    assert elf[:4] == b"\x7fELF" and elf[4] == 1, "not a 32-bit ELF"
    shoff, shentsize, shnum = u32(elf, 0x20), u16(elf, 0x2E), u16(elf, 0x30)
    out = bytearray()
    for i in range(shnum):
        sh = shoff + i * shentsize
        kind, flags, offset, size = u32(elf, sh + 4), u32(elf, sh + 8), u32(elf, sh + 16), u32(elf, sh + 20)
        if kind == 1 and flags & 2 and not flags & 1:  # PROGBITS, ALLOC, not WRITE
            out += elf[offset : offset + size]
    return bytes(out)


def interleaved(buf, depth):
    """`buf` as rows of `depth` bytes re-laid as the interleaved FULLY_CONNECTED kernel reads
    them: word `k` of row `c < 4 (rows // 4)` at word `(c - c % 4) words + 4 k + c % 4`, the
    last rows in place."""
    words, rows = depth // 4, len(buf) // depth
    out = bytearray(buf)
    for c in range(rows // 4 * 4):
        base = (c - c % 4) * words + c % 4
        for k in range(words):
            to, fr = 4 * (base + 4 * k), c * depth + 4 * k
            out[to : to + 4] = buf[fr : fr + 4]
    return bytes(out)


def layouts(data):
    """The layouts a buffer may have in flash: the model's, then each interleaved one."""
    yield data
    for depth in range(4, len(data) // 4 + 1, 4):
        if len(data) % depth == 0:
            yield interleaved(data, depth)


def place(image, data, claimed):
    """Claims the first free 4-byte aligned place of `data` in `image`; whether it found one."""
    at = image.find(data)
    while at >= 0:
        end = at + len(data)
        if at % 4 == 0 and all(end <= s or at >= e for s, e in claimed):
            claimed.append((at, end))
            return True
        at = image.find(data, at + 1)
    return False


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: flash.py FIRMWARE.elf MODEL.tflite")
    with open(sys.argv[1], "rb") as f:
        image = flash_image(f.read())
    with open(sys.argv[2], "rb") as f:
        buffers = [x for x in model_buffers(f.read()) if len(x) >= MIN_BUFFER]
    claimed = []  # (start, end), sorted is not needed: few hundred at most
    constants = found = 0
    for data in sorted(buffers, key=len, reverse=True):
        if any(place(image, layout, claimed) for layout in layouts(data)):
            constants += len(data)
            found += 1
    print(f"text {len(image)}")
    print(f"constants {constants}")
    print(f"code {len(image) - constants}")
    print(f"buffers {found} of {len(buffers)}")


if __name__ == "__main__":
    main()
