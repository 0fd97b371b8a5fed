import StoryModel

/// The script's `layout` and `page` actions as the room's players see them: nil keeps the
/// storyboard's layout and the first page.
public struct RoomView: Sendable, Equatable {
    public var layout: RoomLayoutStyle?
    /// From 1.
    public var page: Int?

    public init(layout: RoomLayoutStyle? = nil, page: Int? = nil) {
        self.layout = layout
        self.page = page
    }
}
