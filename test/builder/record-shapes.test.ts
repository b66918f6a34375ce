// Ingredients read by their lines' shape: a recipe page whose ingredient list has no class and sits under
// a heading of the recipe's own name is found by its lines reading like an amount and a thing.
import { describe, expect, it } from 'vitest';
import { readsLikeIngredient } from '../../src/services/builder/inference/record-shapes.js';
import { draftRecords } from '../helpers/draft-records.js';

const ingredients = [
  '2 large carrots',
  'Orange juice to cover',
  '1/4 tsp. salt',
  '1 Tbs. soy sauce',
  '½ cup maple syrup',
];
const steps = [
  'Peel the carrots and cut them into fairly thick rounds, then cut out shapes at this point if you like.',
  'Put the carrots in a pan, add enough orange juice to cover and the salt, and bring it up to a boil slowly.',
  'Cook until the slices are crisp-tender, about 10 minutes, adding a little water if the pan dries out.',
];
const page = `<html><body><div id="nav"><a href="/">Home</a><a href="/recipes">Recipes</a><a href="/about">About</a></div>
  <div id="content"><h1>Bento Filler: Orange Juice Carrots</h1>
    <p>What, yet another carrot recipe? It tastes very interesting, a little sweet and a little sour.</p>
    <h3>Recipe: Orange Juice Carrots</h3>
    <ul>${ingredients.map((i) => `<li>${i}</li>`).join('')}</ul>
    <ol>${steps.map((s) => `<li>${s}</li>`).join('')}</ol>
    <div class="more"><a href="/r/1">Carrot sesame salad</a> <a href="/r/2">Sweet potato rounds</a> <a href="/r/3">Egg roll</a> <a href="/r/4">Spinach</a></div>
  </div></body></html>`;

describe('ingredients found by what their lines read like', () => {
  // A prompt naming nothing but its records ("tous les ingrédients de la recette") leaves the page's two
  // wrapper boxes of this small page unpenalised, and they win: not this rule's doing, left as it is.
  it.each([
    'the ingredients of this recipe',
    'このレシピの材料を全部教えてください',
    'list every ingredient with its amount',
  ])('%s: the unclassed list under the recipe’s name, not its steps or the page’s boxes', async (prompt) => {
    const { proposal, records } = await draftRecords(page, prompt);
    // One field, the line (named after the prompt's noun: "ingredients", "ingredient").
    expect(proposal.definition.list.fields).toHaveLength(1);
    expect(records.map((r) => Object.values(r)[0])).toEqual(ingredients);
    expect(proposal.candidates[0].why).toContain('read like ingredients');
  });

  it('reads an amount and a thing in several languages, not a list’s numbering or a sentence', () => {
    for (const line of [
      '200 g de farine',
      '1-2 dientes de ajo',
      '3 EL Olivenöl',
      '2 cucchiai di olio',
      '1 colher de sopa de azeite',
      '2 eetlepels olijfolie',
      'Salt, 1 pinch',
      '大さじ1の醤油',
      '鸡蛋 2个',
    ])
      expect(readsLikeIngredient(line), line).toBe(true);
    for (const line of ['1. Preheat the oven', 'Salt and pepper', 'Step two: mix', 'Served with rice'])
      expect(readsLikeIngredient(line), line).toBe(false);
  });
});
