"""Little-endian D-Bus messages written from the specification, as seeds for the dbus-message target.

Values are (signature, Python value): containers nest as lists (arrays, structs), lists of
(key, value) pairs (dictionaries) and (signature, value) pairs (variants).
"""
import struct

ALIGN = {"y": 1, "b": 4, "n": 2, "q": 2, "i": 4, "u": 4, "x": 8, "t": 8, "d": 8, "h": 4,
         "s": 4, "o": 4, "g": 1, "a": 4, "(": 8, "{": 8, "v": 1}
FIXED = {"y": "<B", "b": "<I", "n": "<h", "q": "<H", "i": "<i", "u": "<I", "x": "<q", "t": "<Q", "d": "<d", "h": "<I"}


def split_types(signature):
    """Splits a signature into its complete types."""
    types, i = [], 0
    while i < len(signature):
        j = end_of_type(signature, i)
        types.append(signature[i:j])
        i = j
    return types


def end_of_type(signature, i):
    c = signature[i]
    if c == "a":
        return end_of_type(signature, i + 1)
    if c in "({":
        close = ")" if c == "(" else "}"
        depth, j = 0, i
        while True:
            if signature[j] in "({":
                depth += 1
            elif signature[j] in ")}":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
    return i + 1


class Writer:
    def __init__(self):
        self.buf = bytearray()

    def pad(self, n):
        while len(self.buf) % n:
            self.buf.append(0)

    def value(self, sig, v):
        c = sig[0]
        self.pad(ALIGN[c])
        if c in FIXED:
            self.buf += struct.pack(FIXED[c], v)
        elif c in "so":
            data = v.encode()
            self.buf += struct.pack("<I", len(data)) + data + b"\0"
        elif c == "g":
            data = v.encode()
            self.buf += bytes([len(data)]) + data + b"\0"
        elif c == "v":
            inner_sig, inner = v
            self.value("g", inner_sig)
            self.value(inner_sig, inner)
        elif c == "(":
            for t, item in zip(split_types(sig[1:-1]), v):
                self.value(t, item)
        elif c == "{":
            key_t, value_t = split_types(sig[1:-1])
            self.value(key_t, v[0])
            self.value(value_t, v[1])
        elif c == "a":
            element = sig[1:]
            at = len(self.buf)
            self.buf += b"\0\0\0\0"
            self.pad(ALIGN[element[0]])
            start = len(self.buf)
            for item in v:
                self.value(element, item)
            struct.pack_into("<I", self.buf, at, len(self.buf) - start)
        else:
            raise ValueError(sig)


def message(kind, serial, fields, signature="", args=()):
    """kind: 1 call, 2 return, 3 error, 4 signal; fields: {code: (signature, value)}."""
    body = Writer()
    for t, a in zip(split_types(signature), args):
        body.value(t, a)
    if signature:
        fields = {**fields, 8: ("g", signature)}
    header = Writer()
    header.buf += b"l" + bytes([kind, 0, 1])
    header.buf += struct.pack("<II", len(body.buf), serial)
    header.value("a(yv)", [[code, fields[code]] for code in sorted(fields)])
    header.pad(8)
    return bytes(header.buf + body.buf)


def seeds():
    """A few messages like those BlueZ and the bus send."""
    props = [["Connected", ("b", 1)], ["RSSI", ("n", -60)], ["Name", ("s", "DfuTarg")],
             ["UUIDs", ("as", ["0000fe59-0000-1000-8000-00805f9b34fb"])], ["Value", ("ay", [0x60, 0x01, 0x01])],
             ["ManufacturerData", ("a{qv}", [[0x0059, ("ay", [1, 2, 3])]])], ["Big", ("t", 2**40)],
             ["Ratio", ("d", 0.5)], ["Path", ("o", "/org/bluez/hci0")]]
    path = (1, ("o", "/org/bluez/hci0/dev_C0_FF_EE_00_00_01/service000b/char000c"))
    yield message(4, 7, {path[0]: path[1], 2: ("s", "org.freedesktop.DBus.Properties"), 3: ("s", "PropertiesChanged"),
                         7: ("s", ":1.3")},
                  "sa{sv}as", ["org.bluez.GattCharacteristic1", props, ["Notifying"]])
    yield message(4, 8, {1: ("o", "/"), 2: ("s", "org.freedesktop.DBus.ObjectManager"), 3: ("s", "InterfacesAdded")},
                  "oa{sa{sv}}", ["/org/bluez/hci0/dev_C0_FF_EE_00_00_01", [["org.bluez.Device1", props]]])
    yield message(4, 9, {1: ("o", "/"), 2: ("s", "org.freedesktop.DBus.ObjectManager"), 3: ("s", "InterfacesRemoved")},
                  "oas", ["/org/bluez/hci0/dev_C0_FF_EE_00_00_01", ["org.bluez.Device1"]])
    yield message(1, 10, {1: ("o", "/org/bluez/hci0"), 2: ("s", "org.bluez.Adapter1"), 3: ("s", "StartDiscovery"),
                          6: ("s", "org.bluez")})
    yield message(2, 11, {5: ("u", 10), 6: ("s", ":1.42")}, "ay", [[0x60, 0x06, 0x01] + [0] * 12])
    yield message(3, 12, {4: ("s", "org.bluez.Error.Failed"), 5: ("u", 10)}, "s", ["Operation failed"])
    yield message(2, 13, {5: ("u", 3)}, "a{oa{sa{sv}}}",
                  [[["/org/bluez/hci0", [["org.bluez.Adapter1", props[:3]]]]]])
    yield message(2, 14, {5: ("u", 4)}, "(ybnqiuxtd)v", [[1, 0, -2, 3, -4, 5, -6, 7, 1.5], ("(sg)", ["x", "a{sv}"])])
