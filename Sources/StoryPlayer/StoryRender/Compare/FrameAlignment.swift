/// How two renders' frames are paired: by their content, as `diff` pairs lines, with a frame
/// that changed in place counted as one edit. The pairing is the cheapest edit script from A's
/// fingerprints to B's, a deleted or inserted frame costing 1000 and a changed one 1001: so a
/// dropped frame is one deletion with the frames after it paired with their equals, a frame
/// that changed among frames that all look alike is one changed frame (not an insertion and a
/// deletion apart), and where both cost the same (a transition two frames later) frames
/// inserted and deleted are preferred to frames changed.
///
/// Two steps: Myers' O(ND) search ("An O(ND) Difference Algorithm and Its Variations", 1986)
/// finds D, the fewest frames inserted and deleted; the cheapest script then lies within D
/// diagonals of the start (straying further costs more than D insertions and deletions), where
/// a dynamic programme over that band finds it in O((N+M)·D).
enum FrameAlignment {
    enum Step: Equatable {
        /// The same picture in both (equal fingerprints).
        case same(a: Int, b: Int)
        /// A frame of A whose place B's frame took: measured.
        case replaced(a: Int, b: Int)
        case deleted(a: Int)
        case inserted(b: Int)
    }

    static let insertionCost = 1000, changeCost = 1001

    /// Frame n with frame n, the rest of the longer side deleted or inserted; used when the
    /// renders differ in more places than `align` searches.
    static func byIndex(_ a: [UInt64], _ b: [UInt64]) -> [Step] {
        let paired = min(a.count, b.count)
        return (0..<paired).map { a[$0] == b[$0] ? .same(a: $0, b: $0) : .replaced(a: $0, b: $0) }
            + (paired..<a.count).map { .deleted(a: $0) } + (paired..<b.count).map { .inserted(b: $0) }
    }

    /// The band's moves a byte each, at the most: 256 MB (an hour at 60 fps 1000 edits apart
    /// needs 432 MB).
    static let maxBandBytes = 256 << 20

    /// The cheapest alignment of `a` and `b`, if one with at most `maxEdits` frames inserted and
    /// deleted exists (a changed frame counts two) and its band fits `maxBandBytes`; nil
    /// otherwise.
    static func align(_ a: [UInt64], _ b: [UInt64], maxEdits: Int) -> [Step]? {
        guard let band = fewestInsertionsAndDeletions(a, b, maxEdits: maxEdits),
              (a.count + 1).multipliedReportingOverflow(by: 2 * band + 1).partialValue <= maxBandBytes else { return nil }
        return cheapestSteps(a, b, band: band)
    }

    /// Myers' forward search: the length of the shortest script of insertions and deletions.
    static func fewestInsertionsAndDeletions(_ a: [UInt64], _ b: [UInt64], maxEdits: Int) -> Int? {
        let n = a.count, m = b.count, most = min(n + m, maxEdits)
        let offset = most + 1
        var furthest = [Int](repeating: 0, count: 2 * most + 3)
        for d in 0...most {
            for k in stride(from: -d, through: d, by: 2) {
                var x = k == -d || (k != d && furthest[offset + k - 1] < furthest[offset + k + 1])
                    ? furthest[offset + k + 1] : furthest[offset + k - 1] + 1
                var y = x - k
                while x < n && y < m && a[x] == b[y] {
                    x += 1
                    y += 1
                }
                furthest[offset + k] = x
                if x >= n && y >= m { return d }
            }
        }
        return nil
    }

    /// The dynamic programme over diagonals -band...band, then the way back from the end.
    private static func cheapestSteps(_ a: [UInt64], _ b: [UInt64], band: Int) -> [Step] {
        wayBack(through: bestMoves(a, b, band: band), n: a.count, m: b.count, band: band)
    }

    /// How each point (x, y) of the band is reached most cheaply, at
    /// `x * (2 * band + 1) + y - x + band`: 0 the same frame, 1 a changed one, 2 a frame of A
    /// deleted, 3 a frame of B inserted.
    private static func bestMoves(_ a: [UInt64], _ b: [UInt64], band: Int) -> [UInt8] {
        let n = a.count, m = b.count, width = 2 * band + 1
        var moves = [UInt8](repeating: 0, count: (n + 1) * width)
        var previous = [Int](repeating: .max, count: width), current = previous
        for x in 0...n {
            for i in current.indices { current[i] = .max }
            for y in max(0, x - band)...min(m, x + band) {
                let k = y - x + band
                if x == 0 && y == 0 {
                    current[k] = 0
                    continue
                }
                // On a tie a deletion wins, then an insertion, then the diagonal: the way back
                // starts at the end, so frames that fell off the end of a run are reported there.
                var best = Int.max, move: UInt8 = 0
                if x > 0 && k + 1 < width && previous[k + 1] != .max {
                    best = previous[k + 1] + insertionCost
                    move = 2
                }
                if y > 0 && k > 0 && current[k - 1] != .max && current[k - 1] + insertionCost < best {
                    best = current[k - 1] + insertionCost
                    move = 3
                }
                if x > 0 && y > 0 && previous[k] != .max {
                    let equal = a[x - 1] == b[y - 1]
                    if previous[k] + (equal ? 0 : changeCost) < best {
                        best = previous[k] + (equal ? 0 : changeCost)
                        move = equal ? 0 : 1
                    }
                }
                current[k] = best
                moves[x * width + k] = move
            }
            swap(&previous, &current)
        }
        return moves
    }

    /// The steps from (0, 0) to (n, m) that `moves` chose, walked back from the end.
    private static func wayBack(through moves: [UInt8], n: Int, m: Int, band: Int) -> [Step] {
        let width = 2 * band + 1
        var steps: [Step] = []
        var x = n, y = m
        while x > 0 || y > 0 {
            switch moves[x * width + y - x + band] {
            case 0: steps.append(.same(a: x - 1, b: y - 1)); x -= 1; y -= 1
            case 1: steps.append(.replaced(a: x - 1, b: y - 1)); x -= 1; y -= 1
            case 2: steps.append(.deleted(a: x - 1)); x -= 1
            default: steps.append(.inserted(b: y - 1)); y -= 1
            }
        }
        return steps.reversed()
    }
}
