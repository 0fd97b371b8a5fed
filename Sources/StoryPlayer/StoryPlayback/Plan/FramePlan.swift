import Compositor

/// What one frame of a render shows, decided before anything is drawn or decoded: where the
/// pages are, which stories are on screen, which items play and how far each has played.
///
/// A value: the planner (`FramePlanner`) makes one per frame from the storyboard, its script and
/// the items' lengths, with no side effects, so counting frames, cutting shards and drawing a
/// studio's lanes need no render.
public struct FramePlan: Sendable, Equatable {
    /// An item on screen, or playing behind a moving page.
    public struct ShownItem: Sendable, Equatable {
        public var story: Int
        public var item: Int
        /// The item's own time (time since it began, less the time it was held).
        public var mediaTime: Double
        /// The story's time: how long each of the story's items before this one played (its
        /// planned length when it has not played in this render: a tap back, a shard), plus
        /// `mediaTime`. A story's captions run on it.
        public var storyTime: Double
        /// How far through the item it is, 0…1 (0 while its length is unknown).
        public var progress: Double
        /// Whether its player exists at this frame (create-on-play / drop-on-stop).
        public var plays: Bool
    }

    /// The frame's number, from 0.
    public var index: Int
    /// Timeline seconds: `index / fps`.
    public var time: Double
    /// The scroll position in pages: 0 rests on the first story, 0.5 is halfway to the second.
    public var pageOffset: Double
    /// The story the pages rest on, or were last resting on.
    public var settledPage: Int
    /// Whether a swipe or drag is moving the pages.
    public var isMoving: Bool
    /// The page geometry in use (the storyboard's transition, or a swipe's own style): the faces
    /// and where each is drawn follow from it and `pageOffset`.
    public var geometry: PageTransition
    /// The stories on screen, in page order, and the items that play.
    public var shown: [ShownItem]
    /// The overlay's opacity, 0…1 (it fades while a finger holds the story).
    public var overlayOpacity: Double
    /// Whether the viewer has finished (after the last item, or dismissed): an open-ended render
    /// ends at the first such frame, which it does not draw.
    public var isFinished: Bool

    /// The (story, item) pairs whose players exist at this frame.
    public var playing: [(story: Int, item: Int)] {
        shown.filter(\.plays).map { ($0.story, $0.item) }
    }
}

/// One play of one item as the planner sees it: from `start` until `end` (nil while it still
/// plays), the span a player holds a decoder for. The studio's lifecycle lanes are these.
public struct PlannedPlay: Sendable, Equatable {
    public var story: Int
    public var item: Int
    public var start: Double
    public var end: Double?
}
