/// The actions a machine has decided on but not yet handed to the runner, then the decision it takes
/// when they are done: a machine that turns one protocol step into several actions (a report, a write,
/// an await) keeps them here and hands out one per `.written` or `.reported`.
struct DFUMachineAgenda<Decision: Sendable & Hashable>: Sendable, Hashable {
    /// One entry: an action to hand out, or a decision to take once everything before it was done.
    enum Item: Sendable, Hashable {
        case action(DFUMachineAction)
        case decide(Decision)
    }

    private var items: [Item] = []

    /// An empty agenda.
    init() {}

    /// Whether nothing is planned.
    var isEmpty: Bool { items.isEmpty }

    /// Replaces whatever was planned.
    mutating func plan(_ items: [Item]) { self.items = items }

    /// Takes the next entry, or nil when nothing is planned.
    mutating func next() -> Item? { items.isEmpty ? nil : items.removeFirst() }

    /// Forgets whatever was planned.
    mutating func clear() { items.removeAll() }
}
