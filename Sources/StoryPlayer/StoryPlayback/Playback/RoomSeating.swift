/// Who sits in which tile of a grid's pages (or of a stage's large tiles, its one page), kept
/// as still as it can be: a participant keeps its tile until it must move. It must when it
/// leaves (the last tile's participant takes the place it left, so no page has a hole while a
/// later one has people), and when the dominant speaker is on another page: the speaker comes
/// to page 1 in place of the participant there who spoke least recently, who takes the
/// speaker's old tile (LiveKit's `useVisualStableUpdate`: only what must move moves). Pure, so
/// the stability of a scripted talk is tested without video.
package struct RoomSeating: Sendable, Equatable {
    /// Tiles page after page: page p is `slots[p * perPage ..< (p + 1) * perPage]`; nil: free.
    package private(set) var slots: [String?] = []
    package private(set) var perPage: Int
    /// Participants brought into a tile of page 1 (or moved to fill a leaver's place) since the
    /// start: the tile moves.
    package private(set) var moves = 0

    /// What one update changed, for the `layout` event.
    package struct Change: Sendable, Equatable {
        /// Participants who stayed but were brought into another tile: a speaker to page 1, or
        /// the last tile's participant into a leaver's place. (The one a speaker displaces goes
        /// to the speaker's old tile off page 1; it is named in `reasons`, not counted.)
        package var moved: [String] = []
        package var joined: [String] = []
        package var left: [String] = []
        /// Why, in words: "ben spoke: to page 1 in place of eve", "cy left".
        package var reasons: [String] = []

        package var isEmpty: Bool { moved.isEmpty && joined.isEmpty && left.isEmpty }
    }

    package init(perPage: Int) {
        precondition(perPage > 0, "a page holds a tile at least")
        self.perPage = perPage
    }

    /// The pages the seated participants fill (1 when the room is empty).
    package var pageCount: Int { max(1, (occupied.last.map { $0 / perPage } ?? 0) + 1) }

    /// The participants on page `page` (from 0), tile by tile; free tiles left out.
    package func page(_ page: Int) -> [String] {
        let start = page * perPage
        guard start < slots.count else { return [] }
        return slots[start..<min(slots.count, start + perPage)].compactMap { $0 }
    }

    package func page(of participant: String) -> Int? { slots.firstIndex(of: participant).map { $0 / perPage } }

    private var occupied: [Int] { slots.indices.filter { slots[$0] != nil } }

    /// Seats the participants `present` (newcomers take the first free tiles, in this order:
    /// the room's ranking) and brings `speaker` to page 1 when it is elsewhere. `recent` lists
    /// who spoke, the most recent first: of page 1's participants, the one who spoke least
    /// recently (or never; of several, the last tile) gives the speaker its tile.
    package mutating func update(present: [String], speaker: String?, recent: [String]) -> Change {
        var change = Change()
        let here = Set(present)
        var leftFrom: [Int: String] = [:]
        for index in slots.indices {
            if let id = slots[index], !here.contains(id) {
                slots[index] = nil
                leftFrom[index] = id
                change.left.append(id)
                change.reasons.append("\(id) left")
            }
        }
        // No hole before a later participant: the last one takes the first hole.
        while let hole = slots.firstIndex(where: { $0 == nil }), let last = occupied.last, last > hole {
            let id = slots[last]!
            slots[hole] = id
            slots[last] = nil
            moves += 1
            change.moved.append(id)
            change.reasons.append("\(id) to the tile " + (leftFrom[hole].map { "\($0) left" } ?? "left free"))
        }
        while let last = slots.last, last == nil { slots.removeLast() }
        let seated = Set(slots.compactMap { $0 })
        for id in present where !seated.contains(id) {
            if let free = slots.firstIndex(where: { $0 == nil }) { slots[free] = id } else { slots.append(id) }
            change.joined.append(id)
        }
        if !change.joined.isEmpty { change.reasons.append("\(change.joined.joined(separator: ", ")) joined") }
        if let speaker, let from = slots.firstIndex(of: speaker), from >= perPage {
            let firstPage = 0..<min(perPage, slots.count)
            let rank = { (id: String?) -> Int in id.flatMap { recent.firstIndex(of: $0) } ?? Int.max }
            // The least recent speaker on page 1; of equals, the last tile.
            let place = firstPage.max { a, b in
                let (ra, rb) = (rank(slots[a]), rank(slots[b]))
                return ra != rb ? ra < rb : a < b
            }!
            let displaced = slots[place]
            slots[place] = speaker
            slots[from] = displaced
            moves += 1
            change.moved.append(speaker)
            change.reasons.append("\(speaker) spoke on page \(from / perPage + 1): to page 1"
                                  + (displaced.map { " in place of \($0), who goes to page \(from / perPage + 1)" } ?? ""))
        }
        return change
    }
}
