/// The iteration order of a CPython 3.10 `set` of small non-negative integers.
///
/// nrfutil 6.1.7 passes every SoftDevice requirement list through `set()` before it writes the
/// init packet (`InitPacketPB.__init__`: `sd_req.extend(list(set(sd_req)))`), and merges `--sd-id`
/// into `--sd-req` with a set difference (`__main__.generate`: `set(sd_id_list) - set(sd_req_list)`).
/// The order of `sd_req` in the `.dat` is therefore the slot order of CPython's hash table.
/// This models `Objects/setobject.c` of CPython 3.10 (`set_add_entry`, `set_insert_clean`,
/// `set_table_resize`, `set_difference`, `set_merge`) for integers, whose hash is their value.
struct PythonIntegerSet {
    private static let minimumSize = 8
    private static let linearProbes = 9
    private static let perturbShift: UInt64 = 5

    private var table: [UInt64?]
    private var used = 0

    /// An empty set (8 slots, like CPython's small table).
    init() { table = Array(repeating: nil, count: Self.minimumSize) }

    /// `set(values)`: the values added one by one, in order.
    init(_ values: [UInt64]) {
        self.init()
        for value in values { add(value) }
    }

    /// The values in the order `list(s)` gives them.
    var elements: [UInt64] { table.compactMap { $0 } }

    func contains(_ value: UInt64) -> Bool { table.contains(value) }

    /// `set_add_entry`: probe from `hash & mask`, 10 linear slots, then perturb; resize at 3/5 full.
    mutating func add(_ value: UInt64) {
        let mask = table.count - 1
        var index = Int(value & UInt64(mask))
        var perturb = value
        while true {
            let probes = index + Self.linearProbes <= mask ? Self.linearProbes : 0
            for slot in index...(index + probes) {
                guard let present = table[slot] else {
                    table[slot] = value
                    used += 1
                    if used * 5 >= mask * 3 { resize(to: used > 50000 ? used * 2 : used * 4) }
                    return
                }
                if present == value { return }
            }
            perturb >>= Self.perturbShift
            index = Int((UInt64(index) &* 5 &+ 1 &+ perturb) & UInt64(mask))
        }
    }

    /// `set_insert_clean`: the value is known to be absent and there are no deleted slots.
    private mutating func insertClean(_ value: UInt64) {
        let mask = table.count - 1
        var index = Int(value & UInt64(mask))
        var perturb = value
        while true {
            if table[index] == nil {
                table[index] = value
                return
            }
            if index + Self.linearProbes <= mask {
                for slot in (index + 1)...(index + Self.linearProbes) where table[slot] == nil {
                    table[slot] = value
                    return
                }
            }
            perturb >>= Self.perturbShift
            index = Int((UInt64(index) &* 5 &+ 1 &+ perturb) & UInt64(mask))
        }
    }

    /// `set_table_resize`: the smallest power of two above `minimumUsed`, refilled in slot order.
    private mutating func resize(to minimumUsed: Int) {
        var size = Self.minimumSize
        while size <= minimumUsed { size <<= 1 }
        let old = elements
        table = Array(repeating: nil, count: size)
        for value in old { insertClean(value) }
    }

    /// `self - other` as CPython 3.10 builds it: a copy with `other` removed when `self` is more
    /// than four times larger (`set_copy_and_difference`), otherwise a new set filled in slot order.
    func subtracting(_ other: PythonIntegerSet) -> PythonIntegerSet {
        if (used >> 2) > other.used {
            var copy = PythonIntegerSet()
            if used * 5 >= (copy.table.count - 1) * 3 { copy.resize(to: used * 2) }
            for value in elements { copy.insertClean(value) }
            copy.used = used
            for slot in copy.table.indices where copy.table[slot].map(other.contains) == true {
                copy.table[slot] = nil
            }
            return copy
        }
        var result = PythonIntegerSet()
        for value in elements where !other.contains(value) { result.add(value) }
        return result
    }
}
