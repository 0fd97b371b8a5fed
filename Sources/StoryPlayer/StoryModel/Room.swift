/// A live room: several people streaming at once, shown as a video call is (Stream's video SDK,
/// LiveKit, Jitsi): the first participant in speaking order large, the others in a strip.
public struct Room: Sendable, Equatable {
    public var participants: [RoomParticipant]

    /// How long a room lasts when its story does not say.
    public static let defaultDuration = 30.0

    public init(participants: [RoomParticipant]) {
        self.participants = participants
    }
}

/// One person in a room: any source the players open (a file or a live stream, with or without
/// video), and a picture that stands for them.
public struct RoomParticipant: Sendable, Equatable {
    public var id: String
    public var source: MediaSource
    public var avatar: MediaSource?
    public var pinned: Bool
    public var screensharing: Bool
    /// A stream with no natural end (a live protocol, or `"live": true`).
    public var isLive: Bool

    public init(id: String, source: MediaSource, avatar: MediaSource? = nil, pinned: Bool = false,
                screensharing: Bool = false, isLive: Bool = false) {
        self.id = id
        self.source = source
        self.avatar = avatar
        self.pinned = pinned
        self.screensharing = screensharing
        self.isLive = isLive
    }
}

/// A script action for a room: pin a participant large, or let the speaking order decide again.
public struct RoomAction: Sendable, Equatable {
    /// Timeline seconds.
    public var at: Double
    /// The room's story id; nil: the story on screen when the action comes.
    public var story: String?
    public var participant: String
    public var pins: Bool

    public init(at: Double, story: String?, participant: String, pins: Bool) {
        self.at = at
        self.story = story
        self.participant = participant
        self.pins = pins
    }
}
