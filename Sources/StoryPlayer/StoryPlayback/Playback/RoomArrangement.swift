import Compositor
import StoryModel
import StoryTrace

/// How a room is drawn and who sits where: the layout asked for (the storyboard's or the
/// script's), the arrangement shown, the grid's page, the seating of the tiles, the participant
/// drawn large in a spotlight, and the `layout` events that say why each changed.
struct RoomArrangement {
    /// How the room is drawn now: the storyboard's or the script's layout, or a presentation
    /// while a screen share is there (the share large and whole, its sharer's camera in a
    /// picture-in-picture tile, the others in the strip), whatever the layout.
    enum Kind: String {
        case spotlight, grid, stage, presentation
    }

    typealias Tile = (seat: Int, rect: TileRect)

    private let room: Room
    private let layout: RoomLayout
    private let storyID: String
    private let trace: LifecycleTrace
    /// The storyboard's layout, or the script's latest `layout` action.
    private var style: RoomLayoutStyle
    /// The grid page the script asked for (from 0); the page shown is the last one there is
    /// when the grid has fewer.
    private var requestedPage: Int
    private var page = 0
    private(set) var shown: Kind?
    /// Why the arrangement changed, for the next `layout` event.
    private var reason: String?
    /// Who sits in which tile of the grid's pages or the stage (rebuilt on a change of layout).
    private var seating: RoomSeating?
    /// The spotlight's (or presentation's) large participant.
    private(set) var large: Int?
    /// The tiles drawn last, by seat, with their rectangles.
    private(set) var tiles: [Tile] = []

    init(room: Room, layout: RoomLayout, view: RoomView, storyID: String, trace: LifecycleTrace) {
        self.room = room
        self.layout = layout
        self.storyID = storyID
        self.trace = trace
        style = view.layout ?? room.layout
        requestedPage = max(0, (view.page ?? 1) - 1)
    }

    /// The script's `layout` and `page` actions so far; they take effect at the next frame.
    mutating func setView(_ view: RoomView) {
        style = view.layout ?? room.layout
        requestedPage = max(0, (view.page ?? 1) - 1)
    }

    /// A screen share that is there makes any layout a presentation.
    func wanted(sharing: Bool) -> Kind {
        if sharing { return .presentation }
        switch style {
        case .spotlight: return .spotlight
        case .grid: return .grid
        case .stage: return .stage
        }
    }

    /// The grid's page dots: how many pages and the one shown, when there is more than one.
    var pageDots: (Int, Int)? {
        let pages = seating?.pageCount ?? 1
        return pages > 1 ? (pages, page) : nil
    }

    /// A change of arrangement: the seating and the tiles start again, and a spotlight chooses
    /// its large participant again (so the change is traced with it).
    mutating func start(_ kind: Kind) {
        let first = shown == nil
        shown = kind
        tiles = []
        seating = nil
        if kind == .grid || kind == .stage || !first { large = nil }
        reason = first ? "the room starts" : kind == .presentation ? "a screen share starts" : "layout \(kind.rawValue)"
    }

    /// `seat` (the participant `id`) is drawn large now, because `why`.
    mutating func makeLarge(_ seat: Int, id: String, because why: String, at t: Double) {
        large = seat
        traceLayout(at: t, tiles: [id], why: reason.map { "\($0); " }.map { $0 + why } ?? why)
        reason = nil
    }

    /// A presentation's picture-in-picture tile (none without a camera to show).
    mutating func showPictureInPicture(_ tile: Tile?) {
        tiles = tile.map { [$0] } ?? []
    }

    mutating func clearTiles() { tiles = [] }

    /// A grid's page or a stage: the seating follows who is `present` and who speaks, and the
    /// page follows the script's; a change is traced. Returns the tiles shown.
    mutating func seatTiles(present: [String], dominant: String?, recent: [String], aspect: Double,
                            seatOf: (String) -> Int?, at t: Double) -> [Tile] {
        let grid = shown == .grid
        if seating == nil {
            seating = RoomSeating(perPage: grid ? room.tilesPerPage(width: layout.width, height: layout.height) : room.stageSize)
        }
        let change = seating!.update(present: present, speaker: dominant, recent: recent)
        let pages = grid ? seating!.pageCount : 1
        let newPage = grid ? min(requestedPage, pages - 1) : 0
        // A new arrangement shows its page as it starts; a page action turns one, and a grid
        // that lost the page shown shows its last.
        let paged = newPage != page && reason == nil
        page = newPage
        let ids = seating!.page(page)
        let rects = grid ? layout.gridTiles(count: ids.count, aspect: aspect, paged: pages > 1)
            : layout.stageTiles(count: ids.count, aspect: aspect)
        tiles = zip(ids, rects).compactMap { id, rect in seatOf(id).map { (seat: $0, rect: rect) } }
        if reason != nil || !change.isEmpty || paged {
            traceLayout(at: t, tiles: ids, moved: change.moved, why: seatingReasons(change, paged: paged))
            reason = nil
        }
        return tiles
    }

    /// Why the seating changed. A new arrangement seats everyone again: its reason says so,
    /// not each one's joining.
    private func seatingReasons(_ change: RoomSeating.Change, paged: Bool) -> String {
        var why = reason == nil ? change.reasons : change.reasons.filter { !$0.hasSuffix(" joined") }
        if paged {
            why.insert(page == requestedPage ? "page action: page \(page + 1)" : "page \(requestedPage + 1) is gone: page \(page + 1)", at: 0)
        }
        if let reason { why.insert(reason, at: 0) }
        return why.joined(separator: "; ")
    }

    private func traceLayout(at t: Double, tiles: [String], moved: [String] = [], why: String) {
        let arrangement = shown ?? .spotlight
        let page = arrangement == .grid ? self.page + 1 : nil
        trace.record(.layout, t: t, story: storyID, detail: why) { event in
            event.layout = arrangement.rawValue
            event.page = page
            event.tiles = tiles
            event.moved = moved.isEmpty ? nil : moved
        }
    }
}
