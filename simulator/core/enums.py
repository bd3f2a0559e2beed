"""Integer codes shared by the kernels and the Python side.

Every code the numba kernels read lives here, as a module-level int (numba
freezes module globals at compile time).  The matching label tuples give the
names used in logs, tables and the CLI; ``tests/test_enums.py`` checks that
labels and codes agree.  Codes are 0-based; ``-1`` means "none".
"""

MAX_CARDS = 128  #: card-table capacity (rows of cards.csv)

# --- figures (DIGEST §1.1) -------------------------------------------------
# Each clan owns NFIG figure slots with fixed meaning:
#   0 Leader, 1..8 Warriors, 9 Ship, 10..11 Monster slot 0/1.
NFIG = 12  #: figure slots per clan
FIG_LEADER = 0  #: slot of the Leader
FIG_WARRIOR0 = 1  #: first Warrior slot (8 Warriors: 1..8)
N_WARRIORS = 8  #: Warriors per clan
FIG_SHIP = 9  #: slot of the Ship
FIG_MONSTER0 = 10  #: first Monster slot (2 Monsters: 10, 11)
N_MONSTER_SLOTS = 2  #: Monster upgrade slots

KIND_LEADER = 0  #: figure kind: Leader
KIND_WARRIOR = 1  #: figure kind: Warrior
KIND_SHIP = 2  #: figure kind: Ship
KIND_MONSTER = 3  #: figure kind: Monster
KIND_NAMES = ("Leader", "Warrior", "Ship", "Monster")

# --- locations ---------------------------------------------------------------
# loc[p, f] of a figure: 0..8 a province (0..7 the outer ring, 8 Yggdrasil),
# 9..12 a fjord (LOC_FJORD0 + fjord index), or one of the negative codes.
N_PROVINCES = 9  #: provinces on the board, Yggdrasil included
N_OUTER = 8  #: outer provinces (ring 0..7)
YGGDRASIL = 8  #: province index of Yggdrasil
N_FJORDS = 4  #: fjords
LOC_FJORD0 = 9  #: loc code of fjord 0
LOC_RESERVE = -1  #: in the clan's reserve
LOC_VALHALLA = -2  #: in Valhalla
LOC_NONE = -3  #: not in play (Monster slot empty, or the figure left the game)
N_REGIONS = 3  #: Manheim, Jotunheim, Alfheim (Yggdrasil belongs to none: -1)

# --- stats (DIGEST §1.4) -----------------------------------------------------
STAT_RAGE = 0  #: Rage track
STAT_AXES = 1  #: Axes track
STAT_HORNS = 2  #: Horns track
N_STATS = 3
N_STEPS = 6  #: steps per track (index 0..5)
STAT_NAMES = ("rage", "axes", "horns")

# --- pillage rewards (DIGEST §1.3, §1.6) --------------------------------------
REWARD_RAGE = 0  #: +1 Rage step
REWARD_AXES = 1  #: +1 Axes step
REWARD_HORNS = 2  #: +1 Horns step
REWARD_GLORY = 3  #: +5 Glory
REWARD_ALL = 4  #: +1 step on all three (Yggdrasil)
REWARD_NAMES = ("rage", "axes", "horns", "glory5", "all")

# --- cards -------------------------------------------------------------------
CT_BATTLE = 0  #: battle card (+STR)
CT_LEADER = 1  #: Leader upgrade
CT_WARRIOR = 2  #: Warrior upgrade
CT_SHIP = 3  #: Ship upgrade
CT_MONSTER = 4  #: Monster upgrade
CT_CLAN = 5  #: clan upgrade
CT_QUEST = 6  #: quest
CARD_TYPE_NAMES = ("battle", "leader", "warrior", "ship", "monster", "clan", "quest")

GOD_NAMES = ("odin", "thor", "tyr", "loki", "frigga", "heimdall")  #: god codes 0..5
#: gods a card may belong to (card_god codes): the base game's, then Blood Rage: Valhalla's own
CARD_GOD_NAMES = GOD_NAMES + ("freya", "baldr")

# Gods of Ásgard powers (DIGEST §2); a god on the board carries one (gods.toml `power`).
GP_ODIN = 0  #: a successful pillage of the province gives the reward twice
GP_THOR = 1  #: the battle winner gains Glory per enemy figure destroyed
GP_TYR = 2  #: figures have STR 0 in battles there
GP_LOKI = 3  #: losers gain their Axes as battle Glory, the winner none
GP_FRIGGA = 4  #: no figure can be destroyed there during a battle
GP_HEIMDALL = 5  #: cards are played face up one at a time
N_GOD_POWERS = 6
GOD_POWER_NAMES = GOD_NAMES
N_GODS_MAX = 6  #: gods in the module's data
LOKI_MODE_NAMES = ("losers", "all")  #: option loki_god_mode: winner gains no Axes Glory / still does

# Upgrade slots on the clan sheet (DIGEST §1.5 Upgrade): 8 slots.
SLOT_LEADER = 0  #: Leader slot
SLOT_WARRIOR = 1  #: Warrior slot
SLOT_SHIP = 2  #: Ship slot
SLOT_MONSTER0 = 3  #: Monster slots 3, 4
SLOT_CLAN0 = 5  #: clan slots 5, 6, 7
N_SLOTS = 8
SLOT_NAMES = ("Leader", "Warrior", "Ship", "Monster 1", "Monster 2", "Clan 1", "Clan 2", "Clan 3")

# --- effect opcodes and the hooks they act at ---------------------------------
# A card carries up to MAX_EFFECTS (opcode, a, b) triples; see
# simulator/data/blood-rage/opcodes.toml for names, hooks and parameters.
MAX_EFFECTS = 3  #: effects per card
OP_NONE = -1  #: no effect
OP_WARRIOR_STR = 0  #: static: Warriors count a per pair, b alone, in one province
OP_FREE_FIGURE = 1  #: static: this Monster costs 0 Rage to upgrade and to invade
OP_AS_SHIP = 2  #: static: this Monster is placed in fjords like a Ship
OP_YGGDRASIL = 3  #: static: may invade Yggdrasil; STR a while in Yggdrasil
OP_UPGRADE_DISCOUNT = 4  #: static: your upgrades cost a Rage less (not below 0)
OP_COPY_HIGHEST = 5  #: reveal: value = highest value among opponents' cards
OP_QUEST_REGION = 6  #: quest: most STR in at least one province of region a
OP_QUEST_YGGDRASIL = 7  #: quest: most STR in Yggdrasil
OP_QUEST_VALHALLA = 8  #: quest: at least a of your figures in Valhalla
OP_QUEST_WIDESPREAD = 9  #: quest: most STR in at least a provinces
# card texts (issue 3); the hook each acts at is in opcodes.toml
OP_DESTROY_ENEMY_WARRIORS = 10  #: before compare: destroy a Warrior(s) of each opponent (Odin's Smite)
OP_TIDE = 11  #: before compare: every clan keeps one figure of its choice (Odin's Tide)
OP_LATE = 12  #: late card: may be added after the reveal (Heimdall's Eye, Gaze)
OP_GLORY_ON_WIN = 13  #: win: +a Glory
OP_RAGE_ON_WIN = 14  #: win: +a Rage
OP_RAISE_ON_WIN = 15  #: win: raise a clan stat
OP_STEAL_RAGE_ON_LOSE = 16  #: lose: take a Rage from the winner
OP_STEAL_GLORY_ON_LOSE = 17  #: lose: take a Glory from the winner
OP_POISON = 18  #: lose: take the winner's revealed cards into your hand
OP_WATCH = 19  #: reveal: discard all revealed cards, gain their total value as Glory, all play again
OP_PRIMACY = 20  #: reveal: cancel the text of each opponent's card
OP_GLORY_PER_DESTROYED = 21  #: after battle: +a Glory per figure destroyed in it (Odin's Judgement)
OP_GRACE = 22  #: successful pillage: raise a stat other than the reward's
OP_INVADE_DESTROY = 23  #: on its invade: destroy enemy Warriors (a=0) or non-Monsters, fjord too (a=1)
OP_VALKYRIE = 24  #: after a battle she fought in: +a Glory per enemy figure destroyed
OP_DOUBLE_REWARD = 25  #: successful pillage it fought in: the reward twice (Frost Giant)
OP_RETREAT = 26  #: destroyed in a battle outside Yggdrasil: may retreat there (Volur Witch)
OP_LEADER_MOVE = 27  #: successful pillage the Leader fought in: may move it to an adjacent province
OP_LEADER_RAISE = 28  #: successful pillage the Leader fought in: raise a stats (a=3: all three)
OP_SHIP_GLORY = 29  #: one of your Ships is destroyed: +a Glory (Dragons)
OP_RELEASE_GLORY = 30  #: Release Valhalla: +a Glory per figure of yours released
OP_ENEMIES_GLORY = 31  #: after a battle you fought: +a Glory if at least b enemy figures were destroyed
OP_SUCCOR = 32  #: after you invade a province: may invade it with a Warrior for free
OP_QUEST_AS_BATTLE = 33  #: a Quest card you reveal in battle counts +a
OP_BLESSING = 34  #: you lose a battle: may invade that province with a Warrior for free
OP_RAGNAROK_MULT = 35  #: Ragnarök Glory for your figures times a
OP_CHALLENGE = 36  #: action: pay a Rage to pillage a province already pillaged this age
OP_PROTECT = 37  #: one of your figures would be destroyed: may pay a Rage to prevent it
OP_PROWESS = 38  #: you win a battle: may keep revealed cards for a Rage each
OP_DOMAIN_PILLAGE = 39  #: after you invade a province: may pay a Rage to pillage it at once
OP_QUEST_MULT = 40  #: Glory from your quests times a
OP_CONQUEST = 41  #: end of game: +a Glory per figure of yours on the board
OP_SACRIFICE = 42  #: action: destroy a of your figures on the board to raise a clan stat
OP_VALHALLA_INVADE = 43  #: invade with a figure from Valhalla for a Rage instead of its cost
N_OPCODES = 44

HOOK_STATIC = 0  #: read whenever STR or a cost is computed
HOOK_REVEAL = 1  #: when battle cards are revealed
HOOK_BEFORE_COMPARE = 2  #: before STR is compared
HOOK_LATE = 3  #: late play after the reveal
HOOK_WIN = 4  #: the battle's winner
HOOK_LOSE = 5  #: a battle's loser
HOOK_DESTROY = 6  #: one of your figures is destroyed
HOOK_RELEASE = 7  #: Release Valhalla
HOOK_INVADE = 8  #: after you invade
HOOK_ACTION = 9  #: usable as an action
HOOK_QUEST = 10  #: checked at the Quest phase
HOOK_GAME_END = 11  #: end of the game
HOOK_RAGNAROK = 12  #: Ragnarök destroys your figures
HOOK_PILLAGE = 13  #: after a successful pillage
HOOK_AFTER_BATTLE = 14  #: after a battle is resolved
HOOK_NAMES = ("static", "reveal", "before_compare", "late", "win", "lose", "destroy",
              "release", "invade", "action", "quest", "game_end", "ragnarok", "pillage", "after_battle")

# --- Glory sources (clans.parquet glory_* columns) -----------------------------
G_BATTLE = 0  #: Axes Glory for winning a battle
G_PILLAGE = 1  #: the "5 Glory" pillage reward
G_QUEST = 2  #: completed quests
G_RAGNAROK = 3  #: figures destroyed by Ragnarök
G_BONUS = 4  #: end-of-game stat bonuses
G_CARDS = 5  #: card texts
G_CONTEST = 6  #: Blood Rage: Valhalla contest rewards (region "+5 Glory", god tiles)
G_VALOR = 7  #: Blood Rage: Valhalla Prove Valor
G_START = 8  #: starting Glory (Rainbow Bridge: 12/8/4/0 by the Blood Rage placing, DIGEST §4)
G_MISSION = 9  #: Rainbow Bridge god missions completed in the Blood Rage game
N_GLORY_SRC = 10
GLORY_SOURCE_NAMES = ("battle", "pillage", "quest", "ragnarok", "bonus", "cards", "contest", "valor", "start",
                      "mission")

# --- game-shape counters per clan (batch record field ``shape``; how the bots play) --------
SH_ACTIONS = 0  #: Action-phase turns taken
SH_PILLAGES = 1  #: pillages attempted as the pillager
SH_PILLAGES_WON = 2  #: of them, won (the token flipped)
SH_UNOPPOSED = 3  #: of them, with no enemy in the province (no battle)
SH_BATTLES = 4  #: battles taken part in (pillager or defender)
SH_BATTLES_WON = 5  #: of them, won
SH_BATTLE_TIES = 6  #: of them, ended in a tie (every clan loses, DIGEST §1.6 step 5)
SH_QUESTS = 7  #: quests committed (resolved in the Quest phase)
SH_QUESTS_DONE = 8  #: of them, fulfilled
SH_LOST_BATTLE = 9  #: figures destroyed as battle losers
SH_LOST_RAGNAROK = 10  #: figures destroyed by Ragnarök
SH_PILLAGE_TIES = 11  #: pillages whose battle ended in a tie (one per tied battle: its pillager's)
N_SHAPE = 12
SHAPE_NAMES = ("actions", "pillages", "pillages_won", "pillages_unopposed", "battles", "battles_won",
               "battle_ties", "quests", "quests_done", "lost_battle", "lost_ragnarok", "pillage_ties")

# --- Rainbow Bridge god missions (DIGEST §4; simulator/data/valhalla/missions.toml) ----------
# A mission is checked at the end of each Blood Rage age (after Ragnarök, before Release).
MAX_MISSIONS = 3  #: one per god of the Valhalla game
M_BATTLES = 0  #: won at least a battles this age
M_PILLAGES = 1  #: at least a successful pillages this age
M_QUESTS = 2  #: completed at least a quests this age
M_VALHALLA = 3  #: at least a of your figures in Valhalla (after Ragnarök)
M_GLORY = 4  #: gained at least a Glory this age
MISSION_NAMES = ("battles", "pillages", "quests", "valhalla", "glory")

# --- actions (DIGEST §1.5 Action) ---------------------------------------------
A_INVADE = 0  #: a = figure slot, b = destination loc
A_MARCH = 1  #: a = source province, b = destination province
A_UPGRADE = 2  #: a = hand index, b = slot
A_QUEST = 3  #: a = hand index
A_PILLAGE = 4  #: a = province
A_PASS = 5  #: —
A_CHALLENGE = 6  #: Tyr's Challenge: a = province already pillaged
A_SACRIFICE = 7  #: Frigga's Sacrifice: destroy 2 own figures, raise a stat
N_ACTION_TYPES = 8
ACTION_NAMES = ("invade", "march", "upgrade", "quest", "pillage", "pass", "challenge", "sacrifice")

# --- policies ----------------------------------------------------------------
POL_RANDOM = 0  #: uniform over legal choices
POL_GREEDY = 1  #: the built-in heuristic, tuned by a parameter vector
POL_SCRIPT = 2  #: take the next value of the clan's script queue (scenarios), else greedy
POLICY_NAMES = ("random", "greedy", "script")
SCRIPT_NONE = -9999  #: script queue empty
MAX_SCRIPT = 32  #: script queue capacity per clan

# Greedy parameter vector (float64[N_PARAMS]).  Index constants:
P_W_BATTLE = 0  #: draft weight per +STR of a battle card
P_W_MONSTER = 1  #: draft weight per STR of a Monster
P_W_QUEST = 2  #: draft weight of a quest
P_W_UPGRADE = 3  #: draft weight of a Leader/Warrior/Ship/clan upgrade
P_PILLAGE_MARGIN = 4  #: STR margin wanted over the strongest enemy before pillaging
P_OPP_CARD = 5  #: battle card value assumed for each opponent
P_LATE_RAGE = 6  #: at or below this Rage, invade the doomed province for Ragnarök Glory
P_STAT0 = 7  #: stat raise preference: first, second, third stat code
P_STAT1 = 8
P_STAT2 = 9
P_DOOM = 10  #: extra wish to have figures in the doomed province (Ragnarök Glory), any time of the age
P_PASS_RAGE = 11  #: pass instead of acting when nothing scores above this
P_GOD_W0 = 12  #: draft bonus per god (6 entries, GOD_NAMES order)
P_CARD_W0 = 18  #: draft bonus per card id (MAX_CARDS entries)
P_SYNERGY = P_CARD_W0 + MAX_CARDS  #: draft bonus per card of the same god already held or on the clan sheet
P_HATE = P_SYNERGY + 1  #: hate-draft: weight of a card's plain worth to anyone (denying the next clan)
P_CALL_MARGIN = P_SYNERGY + 2  #: Call to Battle: stop joining once this far ahead of the strongest enemy
P_HOLD_BIG = P_SYNERGY + 3  #: 1: when no card wins, play the smallest (keep big cards); 0: the largest
P_PROTECT = P_SYNERGY + 4  #: 1: pay for Frigga's Protection whenever possible; 0: never
P_RULES0 = P_SYNERGY + 5  #: ordered rules: MAX_RULES blocks of RULE_W (see policy.effective_params_nb)
MAX_RULES = 8  #: rules per strategy
RULE_OVERRIDES = 4  #: parameter overrides per rule
RULE_W = 5 + 2 * RULE_OVERRIDES  #: active, age mask, Rage min, Rage max, n, (index, value) x RULE_OVERRIDES
N_PARAMS = P_RULES0 + MAX_RULES * RULE_W

# --- rule options (index into the int32 options vector) ------------------------
OPT_LEADER_INVADE_COST = 0  #: Rage the Leader costs to invade (DIGEST §1.1, default 0)
OPT_TIE_BREAK = 1  #: 0 rage (most Rage left), 1 shared (DIGEST §1.5)
OPT_DRAFT = 2  #: 1 draft (DIGEST §1.5), 0 deal six (001 "no drafting" option)
OPT_MAX_ACTIONS = 3  #: safety cap on turns in one Action phase
OPT_GODS = 4  #: 1 = Gods of Ásgard module (DIGEST §2)
OPT_LOKI_GOD = 5  #: loki_god_mode: 0 losers (default), 1 all
N_OPTIONS = 6
TIE_BREAK_NAMES = ("rage", "shared")

# --- game log events (one int32[8] row: event, age, player, a, b, c, d, e) ----
EV_AGE = 0  #: a new age begins: a = first player
EV_PICK = 1  #: draft pick: a = card, b = pick number
EV_CARRY = 2  #: carried card joins the hand: a = card
EV_INVADE = 3  #: a = figure slot, b = loc, c = Rage paid, d = free (1) or not
EV_MARCH = 4  #: a = from, b = to, c = figures moved
EV_UPGRADE = 5  #: a = card, b = slot, c = Rage paid, d = replaced card or -1
EV_QUEST = 6  #: a = card committed
EV_PILLAGE = 7  #: a = province attacked
EV_CALL = 8  #: Call to Battle move: a = figure slot, b = from, c = to
EV_PLAY = 9  #: card played in battle: a = card, b = its value
EV_TOTAL = 10  #: battle total: a = figures' STR, b = cards' value, c = total
EV_WIN = 11  #: battle won: a = province, b = Axes Glory
EV_TIE = 12  #: battle tied, everyone loses: a = province
EV_DESTROY = 13  #: figure to Valhalla: a = figure slot, b = from loc, c = cause
EV_REWARD = 14  #: pillage reward: a = province, b = reward code
EV_PASS = 15  #: player passes with a Rage left
EV_NOBATTLE = 16  #: pillage unopposed: a = province
EV_KEEP = 17  #: card kept at Discard: a = card
EV_DISCARD = 18  #: card discarded: a = card
EV_QUESTRES = 19  #: quest result: a = card, b = met, c = Glory
EV_RAISE = 20  #: stat raised: a = stat, b = new step index (0..5), c = cause
EV_RAGNAROK = 21  #: province destroyed: a = province, b = figures lost, c = Glory
EV_RELEASE = 22  #: figures released from Valhalla: a = count
EV_BONUS = 23  #: end bonus: a = stat, b = Glory
EV_FINAL = 24  #: final: a = Glory, b = rank, c = Rage at end of last Action phase
EV_PREDESTROY = 25  #: province destroyed at setup: a = province
EV_DOOM = 26  #: Ragnarök token of age b: a = province
EV_TOKEN = 27  #: pillage token: a = province, b = reward
EV_PHASE = 28  #: phase starts: a = phase code
EV_NOCARD = 29  #: clan in battle with no card to play
EV_TEXT = 30  #: a card's text acts: a = card, b = opcode, c = amount, d = detail (stat, loc, figure, clan)
EV_SAVED = 31  #: a figure is not destroyed: a = figure slot, b = loc, c = card that saved it (-1 module)
EV_CANCEL = 32  #: a card's text is cancelled (Thor's Primacy): a = card
EV_LATE = 33  #: late card added: a = card, b = value
EV_GOD_PLACE = 34  #: a god is placed: a = god index in gods.toml, b = province
EV_GOD_MOVE = 35  #: the pillager moves a god: a = god, b = from, c = to
EV_GOD = 36  #: a god's power acts: a = god, b = province, c = amount
EV_MISSION = 37  #: Rainbow Bridge mission completed this age: a = mission index, b = Glory
N_EVENTS = 38

PH_DRAFT = 0
PH_ACTION = 1
PH_DISCARD = 2
PH_QUEST = 3
PH_RAGNAROK = 4
PH_RELEASE = 5
PH_END = 6
PHASE_NAMES = ("Gods' Gifts", "Action", "Discard", "Quest", "Ragnarök", "Release Valhalla", "End of game")

CAUSE_BATTLE = 0  #: destroyed as a battle loser
CAUSE_RAGNAROK = 1  #: destroyed by Ragnarök
CAUSE_REPLACED = 2  #: Monster replaced by a new Monster upgrade (leaves the game)
CAUSE_CARD = 3  #: destroyed by a card's text (Smite, Tide, Troll, Fire Giant)
CAUSE_SACRIFICE = 4  #: destroyed by its own clan (Frigga's Sacrifice)
RAISE_REWARD = 0  #: raise from a pillage reward
RAISE_QUEST = 1  #: raise from a quest
RAISE_CARD = 2  #: raise from a card text

MAX_ACTS = 512  #: capacity of the legal-action buffer (bloodrage.actions.legal_actions_nb)
MAX_HAND = 24  #: hand capacity
MAX_DEAL = 12  #: cards dealt per clan for a draft, at most (rules.toml age.deal; both Blood Rage engines)
MAX_QUESTS = 16  #: committed quests capacity
MAX_DECK = 48  #: age deck capacity
MAX_PATH = 40  #: stat raises recorded per clan
MAX_PICKS = 8  #: picks recorded per age
MAX_USES = 32  #: card uses recorded per clan per game (state.uses)

# How a card left the hand (state.uses, the plays table)
USE_BATTLE = 0  #: revealed in a battle (played, or added late)
USE_UPGRADE = 1  #: placed on the clan sheet (Upgrade action: clan upgrade, Monster, Leader/Warrior/Ship upgrade)
USE_QUEST = 2  #: committed face down as a quest
USE_KEEP = 3  #: kept at Discard and carried over to the next age
USE_NAMES = ("battle", "upgrade", "quest", "keep")

# Draft handling of a card (tables.card_draft; volva ablate)
DRAFT_FREE = 0  #: drafted as the policy chooses
DRAFT_FORCED = 1  #: a clan must draft it when it is in the pack it holds
DRAFT_BANNED = -1  #: never drafted (stays in the pack and is discarded with the leftovers)
MAX_PLAYERS = 5

# =============================================================================
# Blood Rage: Valhalla (rulebook 000_…txt; DIGEST §3).  Engine: simulator/valhalla/.
# =============================================================================
VH_N_REGIONS = 9  #: regions: 0..7 the outer ring (Region Token numbers 1..8), 8 Valhalla
VH_VALHALLA = 8  #: region index of Valhalla
VH_MAX_REGIONS = 12  #: region capacity (a replacement board may have up to 12)
# Figures per clan ("Prepare Your Clan"): 2 Elites, 6 Warriors, then a slot per Monster base.
VH_NFIG = 13  #: figure slots: 0..1 Elites, 2..7 Warriors, 8..12 Monsters
VH_FIG_ELITE0 = 0
VH_N_ELITES = 2
VH_FIG_WARRIOR0 = 2
VH_N_WARRIORS = 6
VH_FIG_MONSTER0 = 8
VH_N_MONSTERS = 5  #: Monster bases per clan (3 small + 2 large; size not modelled, rulings R45)
VH_KIND_NAMES = ("Elite", "Warrior", "Monster")
# loc codes besides regions 0..11
VH_LOC_RESERVE = -1  #: the clan's reserve
VH_LOC_FEAST = -2  #: the Feast Hall sheet
VH_LOC_NONE = -3  #: no figure (empty Monster base)
VH_LOC_KILL0 = -10  #: kill pile of clan q is VH_LOC_KILL0 - q (-10..-14)
VH_N_SLOTS = 7  #: clan-sheet slots shared by upgrades and committed quests
VH_MAX_HAND = 24
VH_MAX_DECK = 96  #: 75 god cards + 3 Monsters per player
VH_MAX_DISCARD = 24  #: a clan's discard pile
VH_MAX_CARDS = 256  #: card-table capacity (rows of cards.csv, patches included)
VH_GODS_IN_PLAY = 3  #: one god per age
VH_N_GODS_MAX = 8
VH_GOD_NAMES = ("thor", "loki", "freya", "baldr", "tyr")  #: god tile powers (gods.toml `power`)
VGP_THOR = 0  #: +3 Glory
VGP_LOKI = 1  #: steal 2 Glory from each clan that lost the battle (+2 if unopposed)
VGP_FREYA = 2  #: return up to 2 of your figures from kill piles and the Feast Hall
VGP_BALDR = 3  #: draw 2 cards, keep 1
VGP_TYR = 4  #: destroy up to 2 enemy figures in any regions
# region rewards (a region's reward while no god is there)
VR_RAGE = 0
VR_AXES = 1
VR_HORNS = 2
VR_GLORY = 3  #: +glory_reward Glory
VR_ALL = 4  #: +1 step on all three (Valhalla)
VR_GOD = 5  #: a god tile (the god in the region)
VH_REWARD_NAMES = ("rage", "axes", "horns", "glory", "all", "god")
# card types
VCT_BATTLE = 0
VCT_ELITE = 1  #: Elite upgrade
VCT_CLAN = 2  #: clan upgrade
VCT_MONSTER = 3  #: Monster upgrade
VCT_QUEST = 4
VH_CARD_TYPE_NAMES = ("battle", "elite", "clan", "monster", "quest")

# Effect vocabulary (simulator/data/valhalla/opcodes.toml gives names, hooks and args).
VOP_NONE = -1
VOP_GLORY_ON_WIN = 0  #: battle won: +a Glory
VOP_RAGE_ON_WIN = 1  #: battle won: +a Rage
VOP_RAISE_ON_WIN = 2  #: battle won: raise a clan stat
VOP_GLORY_PER_KILL = 3  #: battle won: +a Glory per enemy figure sent to your kill pile by it
VOP_GLORY_ON_LOSE = 4  #: battle lost: +a Glory
VOP_RAGE_ON_LOSE = 5  #: battle lost: +a Rage
VOP_STEAL_ON_LOSE = 6  #: battle lost: take a Glory from the winner
VOP_SAVE_ON_LOSE = 7  #: battle lost: your figures go to your reserve, not the kill pile
VOP_DESTROY_ENEMY = 8  #: before STR is compared: destroy a enemy figures of each opponent
VOP_DRAW_ON_WIN = 9  #: battle won: draw a cards from the deck
VOP_ELITE_STR = 10  #: static: your Elites have +a STR
VOP_BATTLE_STR = 11  #: static: +a STR in every battle you fight
VOP_CONTEST_GLORY = 12  #: you win a contest you started: +a Glory
VOP_VALOR_GLORY = 13  #: Prove Valor: +a Glory per figure of yours removed
VOP_QUEST_GLORY = 14  #: each completed quest: +a Glory
VOP_KILL_GLORY = 15  #: Release Warriors: +a Glory per figure in your kill pile
VOP_FALLEN_GLORY = 16  #: Release Warriors: +a Glory per figure of yours in kill piles / Feast Hall
VOP_PROTECT = 17  #: the first a of your figures lost in each battle go to your reserve
VOP_CALL_EXTRA = 18  #: Call to Battle: move up to 1 + a figures
VOP_CARRY_EXTRA = 19  #: end of age: keep a more cards
VOP_DRAW_AGE = 20  #: after each draft: draw a cards from the deck
VOP_Q_REGION = 21  #: quest: most STR in at least one outer region
VOP_Q_VALHALLA = 22  #: quest: most STR in Valhalla
VOP_Q_GOD = 23  #: quest: most STR in a god's region
VOP_Q_FIGURES = 24  #: quest: at least a of your figures on the board
VOP_Q_SPREAD = 25  #: quest: figures in at least a regions
VOP_Q_KILLS = 26  #: quest: at least a figures in your kill pile
VOP_Q_FALLEN = 27  #: quest: at least a of your figures in kill piles or the Feast Hall
VOP_Q_CLAIMS = 28  #: quest: at least a rewards claimed this age
VOP_SUMMON_TWO = 29  #: a Summon action places up to 2 figures
N_VOPS = 30
VOP_QUESTS = (21, 22, 23, 24, 25, 26, 27, 28)
VH_HOOK_NAMES = ("static", "before_compare", "win", "lose", "contest", "valor", "quest", "release",
                 "age", "action")

# Valhalla actions and phases
VA_SUMMON = 0  #: a = figure slot, b = region
VA_MARCH = 1  #: a = from region, b = figures moved
VA_UPGRADE = 2  #: a = card
VA_QUEST = 3  #: a = card
VA_CONTEST = 4  #: a = region
VA_PASS = 5
VH_ACTION_NAMES = ("summon", "march", "upgrade", "quest", "contest", "pass")
VPH_GOD = 0
VPH_DRAFT = 1
VPH_ACTION = 2
VPH_QUEST = 3
VPH_VALOR = 4
VPH_RELEASE = 5
VPH_END = 6
VH_PHASE_NAMES = ("God Arrives", "Draft Gods' Gifts", "Action", "Quest", "Prove Valor", "Release Warriors",
                  "End of game")

# Valhalla log events (rows as the base game's: event, age, player, a, b, c, d, e)
VEV_AGE = 0  #: a = first player
VEV_PHASE = 1  #: a = phase
VEV_GOD = 2  #: god arrives: a = god, b = region
VEV_PICK = 3  #: a = card, b = pick
VEV_CARRY = 4  #: a = card kept from the previous age
VEV_SUMMON = 5  #: a = figure, b = region, c = Rage paid
VEV_MARCH = 6  #: a = figure, b = from, c = to
VEV_UPGRADE = 7  #: a = card, b = slot, c = Rage paid
VEV_QUEST = 8  #: a = card committed, b = slot
VEV_CONTEST = 9  #: a = region
VEV_CALL = 10  #: a = figure, b = from, c = to
VEV_PLAY = 11  #: a = card, b = value
VEV_TOTAL = 12  #: a = figures' STR, b = card, c = total
VEV_WIN = 13  #: a = region, b = Axes Glory
VEV_TIE = 14  #: a = region
VEV_KILL = 15  #: a = figure, b = from, c = to loc (kill pile / Feast Hall / reserve)
VEV_REWARD = 16  #: a = region, b = reward code, c = god (-1)
VEV_NOBATTLE = 17  #: a = region
VEV_PASS = 18  #: a = Rage lost
VEV_QUESTRES = 19  #: a = card, b = met, c = Glory
VEV_RAISE = 20  #: a = stat, b = new step, c = cause
VEV_VALOR = 21  #: a = region, b = figures, c = Glory
VEV_RELEASE = 22  #: a = figures returned
VEV_KEEP = 23  #: a = card kept for the next age
VEV_DROP = 24  #: a = card removed from the game at the end of the age
VEV_TEXT = 25  #: a card's text acts: a = card, b = opcode, c = amount
VEV_GLORY = 26  #: Glory gained: a = amount, b = source
VEV_BONUS = 27  #: a = stat, b = Glory
VEV_FINAL = 28  #: a = Glory, b = rank, c = Rage left
VEV_DRAW = 29  #: a = card drawn
VEV_STEAL = 30  #: a = Glory, b = from clan
VEV_RETURN = 31  #: a = figure returned to the reserve (Freya's tile)
N_VEVS = 32

# Valhalla greedy parameter vector (float64[VP_N])
VP_W_BATTLE = 0  #: draft weight per +STR of a battle card
VP_W_MONSTER = 1  #: draft weight per STR of a Monster
VP_W_QUEST = 2  #: draft weight of a quest
VP_W_UPGRADE = 3  #: draft weight of an Elite/clan upgrade
VP_CONTEST_MARGIN = 4  #: STR margin wanted over the strongest enemy before contesting
VP_OPP_CARD = 5  #: battle card value assumed for each opponent
VP_STAT0 = 6  #: stat raise preference: first, second, third stat code
VP_STAT1 = 7
VP_STAT2 = 8
VP_VALOR = 9  #: wish to hold the majority in god regions and Valhalla (Prove Valor)
VP_PASS = 10  #: pass when nothing scores above this
VP_GOD_W0 = 11  #: draft bonus per god (VH_GOD_NAMES order, 5 entries)
VP_CARD_W0 = 16  #: draft bonus per card id (VH_MAX_CARDS entries)
VP_N = VP_CARD_W0 + VH_MAX_CARDS
VPOL_RANDOM = 0
VPOL_GREEDY = 1
VPOL_SCRIPT = 2  #: the next value of the clan's script queue (scenarios), else greedy

# Valhalla rule options (int32 vector)
VOPT_TIE_BREAK = 0  #: 0 rage, 1 shared
VOPT_MAX_ACTIONS = 1  #: safety cap on turns in one Action phase
VOPT_GLORY_REWARD = 2  #: the "+5 Glory" region reward
VOPT_CALL_ONE = 3  #: 1: Call to Battle moves at most one figure (DIGEST §3.2); 0: any number
VOPT_VALOR_TIE = 4  #: Prove Valor tie: 0 tied (the tied clans score), 1 all (every clan there scores)
N_VOPTS = 5
VALOR_TIE_NAMES = ("tied", "all")
