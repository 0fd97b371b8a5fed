/// A live room: several people streaming at once, shown as a video call is (Stream's video SDK,
/// LiveKit, Jitsi): the first participant in speaking order large, the others in a strip.
public struct Room: Sendable, Equatable {
    public var participants: [RoomParticipant]
    /// How the room is laid out at its start (a script's `layout` action changes it).
    public var layout: RoomLayoutStyle
    /// A grid's page: at most this many tiles; nil: 6 on a portrait canvas, 9 on a landscape one.
    public var tilesPerPage: Int?
    /// A stage's large tiles: the most recent speakers, 1 to 4.
    public var stageSize: Int

    /// How long a room lasts when its story does not say.
    public static let defaultDuration = 30.0
    public static let defaultStageSize = 4
    public static let stageSizes = 1...4
    public static let tilesPerPageRange = 1...25

    public init(participants: [RoomParticipant], layout: RoomLayoutStyle = .spotlight, tilesPerPage: Int? = nil,
                stageSize: Int = Room.defaultStageSize) {
        self.participants = participants
        self.layout = layout
        self.tilesPerPage = tilesPerPage
        self.stageSize = stageSize
    }

    /// A grid page's tiles on a canvas of this shape: `tilesPerPage`, else Jitsi's and Stream's
    /// usual 6 at portrait and 9 at landscape.
    public func tilesPerPage(width: Int, height: Int) -> Int {
        tilesPerPage ?? (width > height ? 9 : 6)
    }
}

/// How a room is laid out, as the call SDKs lay rooms out (Stream's `SpeakerLayout` and
/// `PaginatedGridLayout`, LiveKit's `FocusLayout` and `GridLayout`, Jitsi's tile view and stage).
public enum RoomLayoutStyle: String, Sendable, Equatable, CaseIterable {
    /// One participant large (pinned, screen share, dominant speaker), the others in a strip.
    case spotlight
    /// Every participant a tile of the same size, in pages, with page dots.
    case grid
    /// The most recent speakers large side by side, the others in the strip.
    case stage
}

/// One person in a room: any source the players open (a file or a live stream, with or without
/// video), and a picture that stands for them.
public struct RoomParticipant: Sendable, Equatable {
    public var id: String
    public var source: MediaSource
    public var avatar: MediaSource?
    public var pinned: Bool
    /// A camera whose person is sharing their screen (Stream's sort key): ranked large.
    public var screensharing: Bool
    /// The source is a shared screen, not a camera: shown large and fitted whole (never cropped)
    /// in every layout, with `sharer`'s camera as a picture-in-picture tile.
    public var screenshare: Bool
    /// Whose screen it is: the participant whose camera the picture-in-picture tile shows.
    public var sharer: String?
    /// A stream with no natural end (a live protocol, or `"live": true`).
    public var isLive: Bool

    public init(id: String, source: MediaSource, avatar: MediaSource? = nil, pinned: Bool = false,
                screensharing: Bool = false, screenshare: Bool = false, sharer: String? = nil, isLive: Bool = false) {
        self.id = id
        self.source = source
        self.avatar = avatar
        self.pinned = pinned
        self.screensharing = screensharing
        self.screenshare = screenshare
        self.sharer = sharer
        self.isLive = isLive
    }
}

/// A script action for a room: pin a participant large (or let the speaking order decide
/// again), change the layout, or show another page of a grid.
public struct RoomAction: Sendable, Equatable {
    public enum Change: Sendable, Equatable {
        case pin(participant: String, pins: Bool)
        case layout(RoomLayoutStyle)
        /// A grid's page, from 1.
        case page(Int)
    }

    /// Timeline seconds.
    public var at: Double
    /// The room's story id; nil: the story on screen when the action comes.
    public var story: String?
    public var change: Change

    public init(at: Double, story: String?, change: Change) {
        self.at = at
        self.story = story
        self.change = change
    }

    public init(at: Double, story: String?, participant: String, pins: Bool) {
        self.init(at: at, story: story, change: .pin(participant: participant, pins: pins))
    }

    /// The participant a `pin` or `unpin` names.
    public var participant: String? {
        if case .pin(let participant, _) = change { return participant }
        return nil
    }
}
