import { CreateStoreTables1795305600000 } from './1795305600000-create-store-tables.js';

/** The store's migrations, oldest first. Append new ones; never edit one that shipped. */
export const STORE_MIGRATIONS = [CreateStoreTables1795305600000];
