"""The claim judge's rules for the direction of an effect, as data (read by `claim_directions`).

Words naming the two directions of one effect: a claim and an excerpt that state the same effect in
opposite directions disagree ("masks increase the risk" / "masks reduced the risk"). Versioned with
the judge's other rules: a change to a row changes what the judge decides, so
`claim_judge_rules.JUDGE_RULES_VERSION` is bumped with it.
"""

from __future__ import annotations

from typing import Final

# How far (tokens either side) a direction word reaches for the measure it qualifies: "enhances IL-10
# production" is about IL-10 production; "led to T cell dysfunction" in the same sentence is not.
DIRECTION_ANCHOR_WINDOW: Final = 6


# Words naming the two directions of one effect (every form is listed; a token matches when its stem
# equals a listed word's stem). A claim and an excerpt that state the same effect in opposite
# directions disagree ("masks increase the risk" / "masks reduced the risk").
def _forms(text: str) -> tuple[str, ...]:
    return tuple(text.split())


DIRECTION_PAIRS: Final[tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = (
    (_forms("increase increased increases increasing raise raised raises raising elevate elevated"
            " elevates elevation higher highest greater greatest more larger largest rise rises rising"
            " rose grow grows growing heavier excess excessive heightened double doubled doubles"
            " grew boost boosted gain gained upregulate upregulated upregulates upregulation exceed"
            " exceeded exceeds elevating boosting gaining upregulating exceeding doubling"),
     _forms("decrease decreased decreases decreasing reduce reduced reduces reducing reduction lower"
            " lowered lowers lowering lowest less fewer smaller smallest drop dropped drops decline declined"
            " declines"
            " declining fall falls fell diminish diminished diminishes loss downregulate downregulated"
            " downregulates downregulation attenuate attenuated attenuates lessen lessened shrink"
            " ameliorate ameliorated ameliorates amelioration alleviate alleviated alleviates halve halved"
            " halves dropping diminishing downregulating attenuating attenuation lessening shrinking"
            " ameliorating alleviating halving")),
    (_forms("faster quicker sooner earlier rapid accelerated"), _forms("slower later delayed")),
    (_forms("improve improved improves improving improvement enhance enhanced enhances enhancing benefit"
            " benefits beneficial better strengthen strengthened protect protected protects protective"
            " enhancement strengthening protecting"),
     _forms("worsen worsened worsens worsening impair impaired impairs impairment harm harms harmful"
            " weaken weakened weakens damage damaged damages deteriorate deteriorated deterioration"
            " detrimental worse deleterious adverse dysfunction dysfunctional impairing weakening"
            " damaging deteriorating")),
    (_forms("promote promoted promotes promoting activate activated activates activation induce induced"
            " induces inducing stimulate stimulated stimulates facilitate facilitated facilitates trigger"
            " triggered triggers accelerate accelerated accelerates potentiate potentiated potentiates"
            " enable enabled enables mediate mediated mediates drive drives driven encourage encourages"
            " encouraged predispose predisposes predisposed enabling mediating driving encouraging"
            " predisposing facilitating stimulating potentiating accelerating stimulation"
            " facilitation potentiation promotion require requires required requiring"),
     _forms("inhibit inhibited inhibits inhibiting inhibition suppress suppressed suppresses suppression"
            " block blocked blocks blocking prevent prevented prevents preventing repress repressed"
            " represses slow slowed slows delay delayed delays abolish abolished abolishes antagonize"
            " antagonized impede impeded impedes hinder hindered hinders hamper hampered hampers"
            " disrupt disrupted disrupts repressing slowing delaying abolishing antagonizing impeding"
            " hindering hampering disrupting repression disruption")),
    (_forms("positive positively"), _forms("negative negatively inverse inversely")),
    (_forms("superior outperform outperformed outperforms"),
     _forms("inferior underperform underperformed underperforms")),
)  # fmt: skip
# Pairs that name one effect in two vocabularies: "encourages proliferation" and "reduces
# proliferation" disagree as "increases" and "reduces" do (indexes into DIRECTION_PAIRS, whose first
# side is the positive one in each).
DIRECTION_FAMILIES: Final[tuple[tuple[int, ...], ...]] = ((0, 3),)

# A ratio of risks states a direction by its value (1.5.0): an odds ratio of 2.77 for the exposed is
# a higher risk, a hazard ratio of 0.42 a lower one. The ratio's name, then its value: the first
# number within `RATIO_VALUE_WINDOW` tokens that is not a share ("95% CI"). A value of 1 states none.
RATIO_NAMES: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(text.split())
    for text in ("odds ratio", "odds ratios", "hazard ratio", "hazard ratios", "relative risk",
                 "risk ratio", "rate ratio", "incidence rate ratio")
)  # fmt: skip
RATIO_VALUE_WINDOW: Final = 20
