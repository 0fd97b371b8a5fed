import Foundation

/// How one story page replaces the next on screen.
public enum TransitionStyle: String, Sendable, CaseIterable {
    /// Instagram: the two stories are faces of a cube turning about their shared edge.
    case cube
    /// Periscope: the pages lie flat, side by side, and scroll.
    case slide
    /// No animation: the nearest page is shown whole.
    case cut
}

/// The direction pages move in.
public enum TransitionAxis: String, Sendable, CaseIterable {
    /// The next story comes in from the right.
    case horizontal
    /// The next story comes in from below (Bigo Live).
    case vertical
}

/// Where a story's picture lands on screen for a given page offset.
public struct FacePlacement: Sendable, Equatable {
    /// The story index (page) this face shows.
    public let page: Int
    /// Texture square [0,1]² → screen pixels.
    public let textureToScreen: Homography
    /// The face's rotation about the hinge, in radians (0 for flat pages).
    public let angle: Double
    /// The colour multiplier, `1 - shading · sin|angle|`.
    public let brightness: Double

    /// Where texel (u, v) lands on screen.
    public func project(u: Double, v: Double) -> SIMD2<Double>? {
        textureToScreen.apply(u, v)
    }

    /// The screen positions of the texture corners (0,0), (1,0), (1,1), (0,1).
    public var corners: [SIMD2<Double>] {
        [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)].compactMap { project(u: $0.0, v: $0.1) }
    }
}

/// The page-turn geometry of a storyboard's `transition` block.
///
/// Given the page offset p (scroll offset over the page size), story k = floor(p) is on
/// the left (top) and story k + 1 on the right (bottom), with f = p − k of the turn done.
public struct PageTransition: Sendable, Equatable {
    public var style: TransitionStyle
    public var axis: TransitionAxis
    /// The perspective distance over the page width (1000 / 375 for iOS's m34 = 1/1000).
    public var perspective: Double
    /// How much a face darkens as it turns away: `shading · sin|angle|`.
    public var shading: Double

    public init(style: TransitionStyle = .cube, axis: TransitionAxis = .horizontal,
                perspective: Double = 2.6667, shading: Double = 0.35) {
        self.style = style
        self.axis = axis
        self.perspective = perspective
        self.shading = shading
    }

    /// The faces on screen at page offset `p`, left (or top) first. Faces seen edge-on are left out.
    public func faces(pageOffset p: Double, width: Int, height: Int) -> [FacePlacement] {
        switch axis {
        case .horizontal:
            return horizontalFaces(pageOffset: p, width: Double(width), height: Double(height), distance: distance(width))
        case .vertical:
            // The vertical scene is the horizontal scene with x and y exchanged; the eye stays
            // where the phone puts it, at the same distance as for a horizontal turn.
            return horizontalFaces(pageOffset: p, width: Double(height), height: Double(width), distance: distance(width)).map {
                FacePlacement(page: $0.page, textureToScreen: $0.textureToScreen.transposed,
                              angle: $0.angle, brightness: $0.brightness)
            }
        }
    }

    /// The perspective distance D in pixels: `perspective` × the canvas width, for either axis.
    /// The seed's m34 = 1/1000 belongs to the phone (375 points wide), not to the swipe's direction.
    public func distance(_ width: Int) -> Double { perspective * Double(width) }

    /// The stories that cover any part of the screen at page offset `p`.
    public func visiblePages(pageOffset p: Double) -> [Int] {
        switch style {
        case .cut:
            return [Int(p.rounded())]
        case .cube, .slide:
            let k = Int(p.rounded(.down))
            return p - Double(k) > Self.restingTolerance ? [k, k + 1] : [k]
        }
    }

    /// Offsets this close to a whole page count as resting on it (floating-point dust from easing).
    static let restingTolerance = 1e-9

    // MARK: - Geometry

    private func horizontalFaces(pageOffset p: Double, width w: Double, height h: Double, distance d: Double) -> [FacePlacement] {
        let pages = visiblePages(pageOffset: p)
        let k = Int(p.rounded(.down))
        let f = pages.count == 2 ? p - Double(k) : 0
        switch style {
        case .cut:
            return [flat(page: pages[0], shiftX: 0, width: w, height: h)]
        case .slide:
            if pages.count == 1 { return [flat(page: k, shiftX: 0, width: w, height: h)] }
            return [flat(page: k, shiftX: -f * w, width: w, height: h),
                    flat(page: k + 1, shiftX: (1 - f) * w, width: w, height: h)]
        case .cube:
            if pages.count == 1 { return [cubeFace(page: k, f: 0, isLeft: true, width: w, height: h, distance: d)] }
            return [cubeFace(page: k, f: f, isLeft: true, width: w, height: h, distance: d),
                    cubeFace(page: k + 1, f: f, isLeft: false, width: w, height: h, distance: d)]
        }
    }

    private func flat(page: Int, shiftX: Double, width w: Double, height h: Double) -> FacePlacement {
        FacePlacement(page: page, textureToScreen: Homography([w, 0, shiftX, 0, h, 0, 0, 0, 1]),
                      angle: 0, brightness: 1)
    }

    /// One cube face, as the seed's CATransform3D (m34 = −1/D) with the anchor on the hinge.
    ///
    /// Local coordinates: x along the page from the hinge, y from the vertical centre. The face
    /// turns by `a` about the hinge: x' = x·cos a, z' = −x·sin a, w = 1 + z'/D, and the screen
    /// point is (x_h + x'/w, y_c + y/w). That is a homography of (x, y), and (x, y) is affine in
    /// the texel (u, v), so the whole texture → screen map is one 3×3 matrix.
    private func cubeFace(page: Int, f: Double, isLeft: Bool, width w: Double, height h: Double, distance d: Double) -> FacePlacement {
        let hingeX = w * (1 - f)
        let centreY = h / 2
        let a = isLeft ? (Double.pi / 2) * f : -(Double.pi / 2) * (1 - f)
        // (u, v) → local (x, y): the left face hangs left of the hinge, the right face right of it.
        let local = Homography([w, 0, isLeft ? -w : 0, 0, h, -h / 2, 0, 0, 1])
        let turn = Homography([cos(a), 0, 0, 0, 1, 0, -sin(a) / d, 0, 1])
        let toScreen = Homography([1, 0, hingeX, 0, 1, centreY, 0, 0, 1])
        return FacePlacement(page: page, textureToScreen: toScreen * turn * local,
                             angle: a, brightness: 1 - shading * abs(sin(a)))
    }
}
