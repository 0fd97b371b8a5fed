/// Who is in the room now, for a recording's summary and `--until-empty`.
extension RoomStage {
    /// Each participant and where they are: "joining" (its source not yet open), "present",
    /// "failed" or "left".
    package var participantStates: [(participant: String, state: String)] {
        seats.all.map { seat in
            let state = seat.failed ? "failed" : seat.left ? "left" : seat.opened ? "present" : "joining"
            return (seat.participant.id, state)
        }
    }

    /// How many participants are in the room: joining or present, not failed or gone.
    package var participantsPresent: Int { seats.all.filter { !$0.gone }.count }
}
