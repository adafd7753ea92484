import { z } from 'zod';
import { storeInputSchema, listInputSchema, updateInputSchema, memorySchema } from '../src/core/schemas.js';
console.log(JSON.stringify(z.toJSONSchema(storeInputSchema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }), null, 1).slice(0, 2500));
console.log(JSON.stringify(z.toJSONSchema(updateInputSchema, { io: 'input', unrepresentable: 'any' })).slice(0, 1500));
