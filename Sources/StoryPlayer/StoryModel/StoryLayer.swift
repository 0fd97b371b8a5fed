import Compositor

/// Text or a sticker drawn over a story's picture (`"layers"` on an item or a story), as a
/// phone's story editor places them: on the story's face, so it turns with the cube.
///
/// Where it stands is a `LayerPose` (centre, rotation, scale, opacity): the layer's own values,
/// moved over time by its `keyframes`. An item's layers run on the item's time, a story's on
/// the story's time.
public struct StoryLayer: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        case text(TextStyle)
        /// A picture file (PNG or WebP with alpha; GIF and APNG animate), its path resolved,
        /// `width` a fraction of the canvas's (its height follows its shape).
        case sticker(MediaSource, width: Double)
    }

    /// How a text layer is set.
    public struct TextStyle: Sendable, Equatable {
        public var text: String
        /// A font file (its path resolved) or a family name fontconfig knows; nil: DejaVu Sans.
        public var font: String?
        public var fontIsFile = false
        /// Pixels of the canvas (default 64).
        public var size = 64.0
        public var bold = false
        public var color = RGBAColor.white
        public var strokeColor = RGBAColor.black
        /// Pixels of outline around each glyph; 0: none.
        public var strokeWidth = 0.0
        /// The rounded box behind the text, as Instagram draws it; nil: none.
        public var background: RGBAColor?
        public var alignment = TextAlignment.center
        /// Where lines wrap, a fraction of the canvas's width (default 0.8).
        public var wrapWidth = 0.8

        public init(text: String) {
            self.text = text
        }
    }

    public enum TextAlignment: String, Sendable, CaseIterable {
        case left, center, right
    }

    public var content: Content
    /// Its pose with no keyframe moving it.
    public var pose = LayerPose()
    /// Moments that move it, in time order (at least one of them names a value).
    public var keyframes: [LayerKeyframe] = []
    /// When it shows, seconds of its item's (or story's) time; nil: from the start, to the end.
    public var from: Double?
    public var to: Double?

    public init(content: Content) {
        self.content = content
    }

    /// Whether it shows at `time`.
    public func shows(at time: Double) -> Bool {
        time >= (from ?? -.infinity) && time < (to ?? .infinity)
    }
}

/// Where a layer stands: its centre as fractions of the canvas, turned `rotation` degrees
/// clockwise about it, scaled, and at an opacity.
public struct LayerPose: Sendable, Equatable {
    public var x = 0.5
    public var y = 0.5
    public var rotation = 0.0
    public var scale = 1.0
    public var opacity = 1.0

    public init(x: Double = 0.5, y: Double = 0.5, rotation: Double = 0, scale: Double = 1, opacity: Double = 1) {
        (self.x, self.y, self.rotation, self.scale, self.opacity) = (x, y, rotation, scale, opacity)
    }
}

/// A moment of a layer's motion: the values it names are reached at `time`, and `easing`
/// shapes the way from here to the next keyframe (CSS's `animation-timing-function` rule).
public struct LayerKeyframe: Sendable, Equatable {
    public var time: Double
    public var x: Double?
    public var y: Double?
    public var rotation: Double?
    public var scale: Double?
    public var opacity: Double?
    public var easing = LayerEasing.linear

    public init(time: Double) {
        self.time = time
    }
}
