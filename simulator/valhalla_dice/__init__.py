"""Valhalla, the dice-and-cards game (rulebook ``003``; DIGEST §5), the third rule set.

Built so far: the exact dice-arming solver (:mod:`.dice`) and the PROVISIONAL content with its
validation (:mod:`.rules`, ``simulator/data/valhalla-dice/``), behind ``volva dice``. The engine (setup, turns,
battles, Ragnarök, scoring) is issue 12's next piece.
"""
