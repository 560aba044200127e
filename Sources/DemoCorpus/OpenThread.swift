/// A conversation that will receive more messages, waiting in `ThreadQueue` for its next reply.
struct OpenThread {
    enum Kind {
        case conversation(topic: Int)
        case forum(list: Int)
        /// A company message the owner forwards to a colleague, who acknowledges it.
        case forwardedUpdate(colleague: Int)
    }

    var key: Int
    var serial: Int
    var kind: Kind
    /// The subject without `Re:`.
    var subject: [UInt8]
    /// Person indices; the first is who started the thread.
    var participants: [Int]
    var lastSender: Int
    var lastTime: Int64
    var lastText: [UInt8]
    /// Message-IDs of the thread so far, oldest first (the last is the parent of the next reply).
    var references: [[UInt8]]
    var remaining: Int
    var due: Int64
    var customLabel: String?
    var forwarded = false
}

/// A binary min-heap of open threads ordered by due time, then by serial (for determinism).
struct ThreadQueue {
    private var heap: [OpenThread] = []

    var count: Int { heap.count }
    var nextDue: Int64? { heap.first?.due }

    private static func before(_ a: OpenThread, _ b: OpenThread) -> Bool {
        a.due != b.due ? a.due < b.due : a.serial < b.serial
    }

    mutating func push(_ thread: OpenThread) {
        heap.append(thread)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if !Self.before(heap[child], heap[parent]) { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> OpenThread? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && Self.before(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count && Self.before(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
