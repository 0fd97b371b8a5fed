/// How two renders' frames are paired: by their content, as `diff` pairs lines. The frames'
/// fingerprints are aligned with Myers' O(ND) difference algorithm ("An O(ND) Difference
/// Algorithm and Its Variations", 1986): the fewest frames deleted from A and inserted into B
/// that leave the rest equal, so one dropped frame is one deletion and the frames after it
/// stay paired with their equals. Within a run of edits, deletions and insertions are then
/// paired in order as replaced frames (a frame that changed), as a diff shows a changed line;
/// only what is left over is reported as inserted or deleted.
enum FrameAlignment {
    enum Step: Equatable {
        /// The same picture in both (equal fingerprints).
        case same(a: Int, b: Int)
        /// A frame of A whose place B's frame took: measured.
        case replaced(a: Int, b: Int)
        case deleted(a: Int)
        case inserted(b: Int)
    }

    /// Frame n with frame n, the rest of the longer side deleted or inserted; used when the
    /// renders differ in more places than `align` searches.
    static func byIndex(_ a: [UInt64], _ b: [UInt64]) -> [Step] {
        let paired = min(a.count, b.count)
        return (0..<paired).map { a[$0] == b[$0] ? .same(a: $0, b: $0) : .replaced(a: $0, b: $0) }
            + (paired..<a.count).map { .deleted(a: $0) } + (paired..<b.count).map { .inserted(b: $0) }
    }

    /// The alignment of `a` and `b` with the fewest edits, if there is one with at most
    /// `maxEdits` (its memory and time grow with their square); nil otherwise.
    static func align(_ a: [UInt64], _ b: [UInt64], maxEdits: Int) -> [Step]? {
        guard let edits = shortestEdits(a, b, maxEdits: maxEdits) else { return nil }
        return pairedWithinRuns(edits)
    }

    /// Myers' forward search, keeping each round's furthest reaches for the way back. `reach[d]`
    /// holds the furthest x on diagonals -d-1...d+1 before round d.
    private static func shortestEdits(_ a: [UInt64], _ b: [UInt64], maxEdits: Int) -> [Step]? {
        let n = a.count, m = b.count, most = min(n + m, maxEdits)
        let offset = most + 1
        var furthest = [Int](repeating: 0, count: 2 * most + 3)
        var reach: [[Int]] = []
        for d in 0...most {
            reach.append(Array(furthest[(offset - d - 1)...(offset + d + 1)]))
            for k in stride(from: -d, through: d, by: 2) {
                var x = k == -d || (k != d && furthest[offset + k - 1] < furthest[offset + k + 1])
                    ? furthest[offset + k + 1] : furthest[offset + k - 1] + 1
                var y = x - k
                while x < n && y < m && a[x] == b[y] {
                    x += 1
                    y += 1
                }
                furthest[offset + k] = x
                if x >= n && y >= m { return backtrack(reach, n: n, m: m) }
            }
        }
        return nil
    }

    /// The way back from (n, m) through each round's reaches: the steps in order.
    private static func backtrack(_ reach: [[Int]], n: Int, m: Int) -> [Step] {
        var steps: [Step] = []
        var x = n, y = m
        for d in stride(from: reach.count - 1, through: 0, by: -1) {
            let v = reach[d]
            func at(_ k: Int) -> Int { v[k + d + 1] }
            let k = x - y
            let previousK = k == -d || (k != d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1
            let previousX = at(previousK), previousY = previousX - previousK
            while x > previousX && y > previousY {
                x -= 1
                y -= 1
                steps.append(.same(a: x, b: y))
            }
            if d > 0 { steps.append(x == previousX ? .inserted(b: previousY) : .deleted(a: previousX)) }
            x = previousX
            y = previousY
        }
        return steps.reversed()
    }

    /// Each run of edits between equal frames: its deletions and insertions paired in order as
    /// replaced frames, the rest left as they are.
    private static func pairedWithinRuns(_ steps: [Step]) -> [Step] {
        var result: [Step] = [], deletions: [Int] = [], insertions: [Int] = []
        func closeRun() {
            let paired = min(deletions.count, insertions.count)
            result += (0..<paired).map { .replaced(a: deletions[$0], b: insertions[$0]) }
            result += deletions.dropFirst(paired).map { .deleted(a: $0) }
            result += insertions.dropFirst(paired).map { .inserted(b: $0) }
            deletions = []
            insertions = []
        }
        for step in steps {
            switch step {
            case .deleted(let a): deletions.append(a)
            case .inserted(let b): insertions.append(b)
            default:
                closeRun()
                result.append(step)
            }
        }
        closeRun()
        return result
    }
}
